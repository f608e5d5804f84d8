//! The value a t-digest key holds ([`StoredDigest`]): the digest, and what the server must
//! still replicate to keep the peers holding it alike (see the family's docs), and what it adds
//! to the family's `INFO` totals.

use std::cell::{Cell, RefCell};

use crate::commands::metrics::{Footprint, Measured, Totals};
#[cfg(doc)]
use crate::commands::server::Server;
use crate::core::rdb::RdbWrite;
use crate::core::relocate::{Mover, Relocate};
use crate::core::tdigest::{rdb, TDigest};
use crate::core::Error;

pub(super) static TOTALS: Totals = Totals::new();

/// The counts of a digest's footprint, by position.
pub(super) const OBSERVATIONS: usize = 0;
pub(super) const CAPACITY: usize = 1;

/// A t-digest as a key holds it.
///
/// The digest sits in a `RefCell` for one caller: a save, which gets the value shared, and
/// which — when the compressed copy it writes from cannot be allocated — compresses the digest
/// in place instead. Every other caller either owns the value (`get_mut`, no check) or only
/// reads it.
#[derive(Debug)]
pub struct StoredDigest {
    digest: RefCell<TDigest>,
    /// Whether the digest owes its peers a replicated compression: a save in this process
    /// wrote it compressed (RedisBloom's in-place compression), or it was loaded from a save.
    owes: Cell<bool>,
    /// The server's fork count ([`Server::snapshots`]) when the digest was last seen without a
    /// buffer: a fork after that saved it compressed.
    unbuffered_at: u64,
}

impl Relocate for StoredDigest {
    fn relocate(&mut self, mover: &mut impl Mover) {
        self.digest.get_mut().relocate(mover);
    }
}

impl StoredDigest {
    /// A digest a command made, as of `snapshots` forks.
    pub fn new(digest: TDigest, snapshots: u64) -> StoredDigest {
        StoredDigest {
            digest: RefCell::new(digest),
            owes: Cell::new(false),
            unbuffered_at: snapshots,
        }
    }

    /// A digest loaded from an RDB file or a payload (it owes its peers a compression, which
    /// changes nothing here).
    pub fn loaded(digest: TDigest, snapshots: u64) -> StoredDigest {
        let stored = StoredDigest::new(digest, snapshots);
        stored.owes.set(true);
        stored
    }

    /// The digest, to change.
    pub fn digest_mut(&mut self) -> &mut TDigest {
        self.digest.get_mut()
    }

    /// `read` of the digest (`None` only while a save compresses it, which no caller sees).
    pub fn read<T>(&self, read: impl FnOnce(&TDigest) -> T) -> Option<T> {
        self.digest.try_borrow().ok().map(|digest| read(&digest))
    }

    /// Whether a primary must compress the digest and replicate that before changing it, as of
    /// `snapshots` forks.
    pub fn owes_compression(&mut self, snapshots: u64) -> bool {
        let forked = self.unbuffered_at < snapshots && self.digest.get_mut().has_buffer();
        self.owes.get() || forked
    }

    /// The owed compression was made and replicated.
    pub fn paid(&mut self) {
        self.owes.set(false);
    }

    /// Notes, as of `snapshots` forks, whether the digest has a buffer a fork could drop.
    pub fn note_buffer(&mut self, snapshots: u64) {
        if !self.digest.get_mut().has_buffer() {
            self.unbuffered_at = snapshots;
        }
    }

    /// Writes the RDB fields (RedisBloom's `TDIS-TYPE`): the compressed digest, from a copy,
    /// leaving the value as it is and owing the compression. When the copy cannot be had, the
    /// digest is compressed in place, as RedisBloom does, and owes the replication of it.
    pub fn save(&self, out: &mut impl RdbWrite) {
        let saved = self
            .read(|digest| {
                let changes = digest.compress_changes();
                rdb::save(digest, out).map(|()| changes)
            })
            .unwrap_or(Err(Error::OutOfMemory));
        match saved {
            Ok(changes) => {
                if changes {
                    self.owes.set(true);
                }
            }
            Err(_) => {
                if let Ok(mut digest) = self.digest.try_borrow_mut() {
                    digest.compress();
                    self.owes.set(true);
                    // No buffer left (or one that a compression keeps): no copy is needed.
                    let _ = rdb::save(&digest, out);
                }
            }
        }
    }

    /// An independent copy (COPY), owing what this one owes.
    pub fn try_clone(&self) -> Result<StoredDigest, Error> {
        let digest = self
            .read(TDigest::try_clone)
            .unwrap_or(Err(Error::OutOfMemory))?;
        Ok(StoredDigest {
            digest: RefCell::new(digest),
            owes: Cell::new(self.owes.get()),
            unbuffered_at: self.unbuffered_at,
        })
    }

    /// Bytes, as RedisBloom 8 counts them (`MEMORY USAGE`, INFO's `Memory usage`).
    pub fn memory_usage(&self) -> u64 {
        self.read(TDigest::memory_usage).unwrap_or(0)
    }
}

impl Measured for StoredDigest {
    fn footprint(&self) -> Footprint {
        self.read(|digest| {
            Footprint::new(
                digest.memory_usage(),
                [
                    (OBSERVATIONS, digest.size() as u64),
                    (CAPACITY, digest.info().capacity as u64),
                ],
            )
        })
        .unwrap_or_default()
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}
