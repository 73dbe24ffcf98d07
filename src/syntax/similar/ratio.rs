//! difflib's similarity ratio, the exact measure `slug/similar` uses.

/// The ratio of Python's `difflib.SequenceMatcher(None, a, b).ratio()` (no
/// junk heuristics, which only apply to strings of 200 characters or more):
/// twice the matched characters over the total length.
pub(crate) fn sequence_ratio<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * matched(a, b) as f64 / total as f64
}

/// [`sequence_ratio`] of two strings, in either order, the greater.
pub(super) fn str_ratio(a: &str, b: &str) -> f64 {
    if a.is_ascii() && b.is_ascii() {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        return sequence_ratio(a, b).max(sequence_ratio(b, a));
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    sequence_ratio(&a, &b).max(sequence_ratio(&b, &a))
}

fn matched<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut total = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    let mut row = vec![0usize; b.len() + 1];
    let mut prev = vec![0usize; b.len() + 1];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        // Longest common block, earliest in `a`, then earliest in `b`.
        let (mut bi, mut bj, mut bk) = (alo, blo, 0);
        prev[blo..=bhi].iter_mut().for_each(|x| *x = 0);
        for (i, ai) in a.iter().enumerate().take(ahi).skip(alo) {
            row[blo..=bhi].iter_mut().for_each(|x| *x = 0);
            for j in blo..bhi {
                if *ai == b[j] {
                    // prev[j] holds the run ending at (i - 1, j - 1).
                    let k = prev[j] + 1;
                    row[j + 1] = k;
                    if k > bk {
                        bi = i + 1 - k;
                        bj = j + 1 - k;
                        bk = k;
                    }
                }
            }
            std::mem::swap(&mut row, &mut prev);
        }
        if bk == 0 {
            continue;
        }
        total += bk;
        queue.push((alo, bi, blo, bj));
        queue.push((bi + bk, ahi, bj + bk, bhi));
    }
    total
}
