//! Items taken a batch at a time ([`in_batches`]): each batch hashed into an array on the
//! stack, so that a family can read ahead the bytes the whole batch will touch before it checks
//! or adds any item of it. The reads do not depend on each other, so on a structure larger than
//! the caches their memory latencies overlap instead of adding up, and each item is then still
//! checked or added in order, seeing every earlier one.

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
    use super::in_batches;

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
}
