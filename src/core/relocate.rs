//! Active defragmentation as the structures see it: a stored value offers each heap block it
//! owns, always in the same order, to a [`Mover`], which may put the block elsewhere with the
//! same contents (the server glue's mover asks the server's allocator, `RedisModule_DefragAlloc`).
//! A value only names its vectors here; how a block is moved, which blocks are worth moving,
//! and when to stop for the server's time slice are the mover's.

/// Moves heap blocks.
pub trait Mover {
    /// May move the block behind `vector`: afterwards it holds the same elements, perhaps at
    /// another address.
    fn vector<T>(&mut self, vector: &mut Vec<T>);
}

/// A value whose heap blocks can be moved.
pub trait Relocate {
    /// Offers every heap block the value owns to `mover`, in an order that depends only on
    /// the value's shape, so that a walk stopped part way can be resumed by counting.
    fn relocate(&mut self, mover: &mut impl Mover);
}

impl<T: Relocate> Relocate for Vec<T> {
    /// The vector's own block, then each element's.
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(self);
        for element in self {
            element.relocate(mover);
        }
    }
}

/// How many blocks are offered between two looks at the deadline.
const OFFERS_PER_DEADLINE_CHECK: u64 = 32;

/// Where a walk stands within one slice of it, for a mover whose server gives each slice a
/// deadline: blocks are counted as they are offered, those earlier slices handled skipped,
/// until the deadline passes. The count where it stopped is where the next slice resumes.
#[derive(Debug)]
pub struct Walk {
    /// Blocks offered so far, skipped ones included.
    offered: u64,
    /// Blocks handled by earlier calls of this walk.
    resume_at: u64,
    /// Whether the deadline passed: the blocks after it wait for the next call.
    stopped: bool,
}

impl Walk {
    /// A walk resuming after the `cursor` blocks earlier calls handled (0: from the start).
    pub fn resuming_at(cursor: u64) -> Walk {
        Walk {
            offered: 0,
            resume_at: cursor,
            stopped: false,
        }
    }

    /// Whether the block now offered is this call's to handle. `deadline_passed` is asked
    /// every `OFFERS_PER_DEADLINE_CHECK` (32) blocks; once it says so, no block is.
    pub fn take(&mut self, deadline_passed: impl FnOnce() -> bool) -> bool {
        if self.stopped {
            return false;
        }
        if self.offered < self.resume_at {
            self.offered += 1;
            return false;
        }
        if (self.offered + 1).is_multiple_of(OFFERS_PER_DEADLINE_CHECK) && deadline_passed() {
            self.stopped = true;
            return false;
        }
        self.offered += 1;
        true
    }

    /// Where the next call resumes, if this one stopped before the end.
    pub fn cursor(&self) -> Option<u64> {
        self.stopped.then_some(self.offered)
    }

    /// Whether this slice starts the walk.
    pub fn at_start(&self) -> bool {
        self.resume_at == 0
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A mover that copies every block it is offered into a new one (so every address
    /// changes) and counts them: what a value's relocation must survive.
    #[derive(Default)]
    pub(crate) struct CopyingMover {
        pub(crate) blocks: usize,
    }

    impl Mover for CopyingMover {
        fn vector<T>(&mut self, vector: &mut Vec<T>) {
            self.blocks += 1;
            let mut moved = Vec::with_capacity(vector.capacity());
            moved.append(vector);
            *vector = moved;
        }
    }

    /// Relocates `value` and checks that nothing changed: it still equals `original` (a copy
    /// made before), and a second walk offers as many blocks as the first. Returns how many
    /// blocks it offered.
    pub(crate) fn relocates_unchanged<V: Relocate + PartialEq + std::fmt::Debug>(
        mut value: V,
        original: &V,
    ) -> usize {
        let mut mover = CopyingMover::default();
        value.relocate(&mut mover);
        assert_eq!(&value, original);
        let first = mover.blocks;
        let mut again = CopyingMover::default();
        value.relocate(&mut again);
        assert_eq!(again.blocks, first);
        first
    }

    /// A walk of `blocks` blocks cut by a deadline after every `slice` blocks handled, as the
    /// server cuts one over successive calls: which blocks each call handles.
    fn sliced(blocks: u64, slice: u64) -> Vec<Vec<u64>> {
        let mut calls = Vec::new();
        let mut cursor = 0;
        loop {
            let mut walk = Walk::resuming_at(cursor);
            let mut handled = Vec::new();
            for block in 0..blocks {
                let passed = handled.len() as u64 >= slice;
                if walk.take(|| passed) {
                    handled.push(block);
                }
            }
            calls.push(handled);
            match walk.cursor() {
                Some(next) => cursor = next,
                None => return calls,
            }
        }
    }

    #[test]
    fn a_sliced_walk_handles_every_block_once() {
        for (blocks, slice) in [
            (0, 1),
            (5, 1),
            (31, 1),
            (32, 1),
            (100, 1),
            (100, 40),
            (1000, 7),
        ] {
            let calls = sliced(blocks, slice);
            let all: Vec<u64> = calls.concat();
            assert_eq!(all, (0..blocks).collect::<Vec<_>>(), "{blocks} by {slice}");
        }
        // The deadline is looked at once per OFFERS_PER_DEADLINE_CHECK blocks.
        let calls = sliced(100, 1);
        let sizes: Vec<usize> = calls.iter().map(Vec::len).collect();
        assert_eq!(sizes, [31, 32, 32, 5]);
    }

    #[test]
    fn an_unsliced_walk_handles_every_block() {
        let mut walk = Walk::resuming_at(0);
        assert!((0..1000).all(|_| walk.take(|| false)));
        assert_eq!(walk.cursor(), None);
    }
}
