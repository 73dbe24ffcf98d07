//! [`super::candidate`] sixteen bytes at a time with SSE2 (every x86-64
//! processor has it).

use std::arch::x86_64::*;

/// A bit for each of the first sixteen bytes of `window` (seventeen
/// bytes: each byte's next one is there) that is a [`super::candidate`].
#[inline(always)]
pub(super) fn candidates(window: &[u8], lf: bool) -> u32 {
    assert!(window.len() >= 17);
    // SAFETY: SSE2 is part of x86-64 itself, so every processor this
    // code runs on has it.
    unsafe { candidates_sse2(window, lf) }
}

#[target_feature(enable = "sse2")]
fn candidates_sse2(window: &[u8], lf: bool) -> u32 {
    // SAFETY: both loads read sixteen bytes within `window`, which
    // holds seventeen (checked by the caller); unaligned loads are
    // allowed.
    let (v, next) = unsafe {
        (
            _mm_loadu_si128(window.as_ptr().cast()),
            _mm_loadu_si128(window.as_ptr().add(1).cast()),
        )
    };
    macro_rules! eq {
        ($x:expr, $b:expr) => {
            _mm_cmpeq_epi8($x, _mm_set1_epi8($b as u8 as i8))
        };
    }
    macro_rules! or {
        ($a:expr, $b:expr) => {
            _mm_or_si128($a, $b)
        };
    }
    // C0 (below 0x20 unsigned: the minimum with 0x1f is the byte
    // itself), but tab and, in a text, line feed; DEL.
    let c0 = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
    let kept = match lf {
        true => or!(eq!(v, b'\t'), eq!(v, b'\n')),
        false => eq!(v, b'\t'),
    };
    let controls = or!(_mm_andnot_si128(kept, c0), eq!(v, 0x7f));
    // Each lead byte of [`super::may_begin_symbol`] with its second
    // bytes: 0xc2 then 0x80-0x9f (below 0xa0 as signed bytes, a
    // continuation byte following a lead byte) or 0xad, and so on.
    let n80 = eq!(next, 0x80);
    let n81 = eq!(next, 0x81);
    let n85 = eq!(next, 0x85);
    let na0 = eq!(next, 0xa0);
    let c2 = or!(
        _mm_cmplt_epi8(next, _mm_set1_epi8(0xa0_u8 as i8)),
        eq!(next, 0xad)
    );
    let ef = or!(
        or!(eq!(next, 0xb8), eq!(next, 0xbb)),
        or!(eq!(next, 0xbe), eq!(next, 0xbf))
    );
    let and = |lead: u8, seconds: __m128i| _mm_and_si128(eq!(v, lead), seconds);
    let symbols = or!(
        or!(
            or!(and(0xc2, c2), and(0xd8, eq!(next, 0x9c))),
            or!(and(0xe1, or!(n85, na0)), and(0xe2, or!(or!(n80, n81), na0)))
        ),
        or!(
            or!(and(0xe3, n85), and(0xef, ef)),
            or!(and(0xf0, eq!(next, 0x9d)), and(0xf3, na0))
        )
    );
    let all = or!(controls, symbols);
    _mm_movemask_epi8(all) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::sanitize::candidate;

    #[test]
    fn sixteen_bytes_at_once_find_the_candidates_one_byte_at_a_time_finds() {
        // Every byte followed by every byte, at every place of the sixteen.
        let mut window = [b'a'; 17];
        for b in 0..=255u8 {
            for next in 0..=255u8 {
                for at in [0, 5, 15] {
                    window.fill(b'a');
                    window[at] = b;
                    window[at + 1] = next;
                    for lf in [false, true] {
                        let found = candidates(&window, lf);
                        let want: u32 = (0..16)
                            .filter(|&i| candidate(window[i], window.get(i + 1), lf))
                            .map(|i| 1 << i)
                            .sum();
                        assert_eq!(found, want, "{b:#04x} {next:#04x} at {at}, lf {lf}");
                    }
                }
            }
        }
    }
}
