//! Items taken a batch at a time ([`in_batches`]): each batch hashed into an array on the
//! stack, so that a family can read ahead the bytes the whole batch will touch before it checks
//! or adds any item of it ([`read_ahead`]). The reads do not depend on each other, so on a
//! structure larger than the caches their memory latencies overlap instead of adding up, and
//! each item is then still checked or added in order, seeing every earlier one.

use std::sync::OnceLock;

/// Asks the processor for the cache line that holds `bytes[offset]`, and does not wait for
/// it: a hint, which changes nothing and cannot fault. The glue hands over one that runs the
/// processor's prefetch instruction ([`use_prefetch`]).
pub type Prefetch = fn(bytes: &[u8], offset: usize);

/// The prefetch the glue found for this processor, once per process.
static PREFETCH: OnceLock<Prefetch> = OnceLock::new();

/// Makes `prefetch` the way [`read_ahead`] asks for bytes from now on; called by the glue at
/// load. A process has one processor, so the first one given stays.
pub fn use_prefetch(prefetch: Prefetch) {
    let _ = PREFETCH.set(prefetch);
}

/// Starts reading the bytes of `bytes` at `offsets` (each within it) into the caches.
///
/// With the processor's prefetch (x86-64) the reads are only started: a prefetch leaves the
/// processor as soon as it is issued. Without it, each byte is read, which overlaps the misses
/// too but holds the processor until the oldest of them arrives. On a 12 MiB Bloom filter the
/// prefetch of every probe took `BF.MEXISTS` ×100 to 0.75 of the time of reading each item's
/// first probe (bench/README.md, "Reading ahead with the prefetch instruction").
#[inline]
pub fn read_ahead(bytes: &[u8], offsets: impl IntoIterator<Item = usize>) {
    read_ahead_with(PREFETCH.get().copied(), bytes, offsets);
}

/// [`read_ahead`] with the prefetch given (`None`: read each byte).
#[inline]
fn read_ahead_with(
    prefetch: Option<Prefetch>,
    bytes: &[u8],
    offsets: impl IntoIterator<Item = usize>,
) {
    match prefetch {
        Some(prefetch) => offsets
            .into_iter()
            .for_each(|offset| prefetch(bytes, offset)),
        None => {
            let touched = offsets.into_iter().fold(0u8, |touched, offset| {
                touched ^ bytes.get(offset).copied().unwrap_or(0)
            });
            // Keeps the reads from being optimised away; the value itself means nothing.
            std::hint::black_box(touched);
        }
    }
}

/// Hands `each` the hashes (`hash`) of the items, `N` at a time and in order, the last batch
/// shorter; stops early when `each` returns false.
#[inline]
pub fn in_batches<'a, H: Copy + Default, const N: usize>(
    items: impl IntoIterator<Item = &'a [u8]>,
    hash: impl Fn(&[u8]) -> H,
    mut each: impl FnMut(&[H]) -> bool,
) {
    let mut items = items.into_iter();
    let mut batch = [H::default(); N];
    loop {
        let mut made = 0;
        for (slot, item) in batch.iter_mut().zip(&mut items) {
            *slot = hash(item);
            made += 1;
        }
        let hashes = batch.get(..made).unwrap_or_default();
        if !each(hashes) || made < N {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::{in_batches, read_ahead_with};

    fn batches<const N: usize>(count: usize, stop_after: usize) -> Vec<Vec<usize>> {
        let items: Vec<Vec<u8>> = (0..count).map(|i| i.to_string().into_bytes()).collect();
        let mut seen = Vec::new();
        in_batches::<usize, N>(
            items.iter().map(Vec::as_slice),
            |item| std::str::from_utf8(item).unwrap().parse().unwrap(),
            |hashes| {
                seen.push(hashes.to_vec());
                seen.len() < stop_after
            },
        );
        seen
    }

    #[test]
    fn every_item_once_in_order() {
        for count in [0, 1, 15, 16, 17, 32, 100] {
            let seen = batches::<16>(count, usize::MAX);
            let flat: Vec<usize> = seen.concat();
            assert_eq!(flat, (0..count).collect::<Vec<_>>(), "{count} items");
            assert!(seen.iter().all(|batch| batch.len() <= 16));
            // Only the last batch is short, and an empty one only when nothing is left over.
            let full = seen.len().saturating_sub(1);
            assert!(seen.iter().take(full).all(|batch| batch.len() == 16));
            assert_eq!(seen.len(), count / 16 + 1, "{count} items");
        }
    }

    #[test]
    fn stops_when_asked() {
        assert_eq!(
            batches::<4>(100, 2),
            vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]
        );
    }

    thread_local! {
        static ASKED: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    }

    fn recording(bytes: &[u8], offset: usize) {
        assert_eq!(bytes.len(), 1000);
        ASKED.with(|asked| asked.borrow_mut().push(offset));
    }

    #[test]
    fn every_offset_is_asked_for_once_in_order() {
        let bytes = [0u8; 1000];
        read_ahead_with(Some(recording), &bytes, (0..300).map(|i| i * 3));
        let asked = ASKED.with(|asked| asked.take());
        assert_eq!(asked, (0..300).map(|i| i * 3).collect::<Vec<_>>());
        // Without a prefetch each byte is read, and an offset past the end is not.
        read_ahead_with(None, &bytes, [0, 999, 1000, usize::MAX]);
    }
}
