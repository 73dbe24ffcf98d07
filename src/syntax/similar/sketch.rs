//! Content sketches for `content/duplicate`: what a record's title and body
//! say, reduced to 128 bytes that estimate how alike two texts are.
//!
//! The text is normalised into tokens (Latin-script and other words
//! lowercased, punctuation and markdown dropped; runs of Han, Hiragana,
//! Katakana and Hangul into overlapping character bigrams, as search does),
//! the tokens into shingles (each pair of neighbouring tokens), and the set
//! of shingles into a one-permutation MinHash of [`BINS`] bins with
//! densification (Shrivastava and Li, 2014), each bin kept as one byte. The
//! share of equal bytes estimates the Jaccard similarity of the two shingle
//! sets; bands of [`ROWS`] bins find the candidate pairs in linear time
//! (locality-sensitive hashing), so no pair of records is ever compared
//! unless they share a band.
//!
//! A short text fills few bins, and the estimate of two short texts is
//! noisy (thirty shingles give about thirty samples: ±0.08 around 0.8).
//! So a text of at most [`EXACT_UP_TO`] shingles also keeps its set of
//! shingles ([`Shingles`]), and two such texts are compared exactly
//! ([`Likeness::similarity`]); the sketch still finds them as candidates.

use xxhash_rust::xxh3::xxh3_64;

/// Bins (bytes) of a sketch.
pub(crate) const BINS: usize = 128;
const BIN_BITS: u32 = BINS.trailing_zeros();
const _: () = assert!(BINS.is_power_of_two());

/// Bins per band: two texts are compared when all the bins of one band agree.
pub(crate) const ROWS: usize = 4;
/// Bands of a sketch.
pub(crate) const BANDS: usize = BINS / ROWS;
/// Fewest distinct shingles a text needs for a sketch: below this, two
/// texts agree by accident too easily ("Use Redis." and "Use Redis.").
pub(crate) const MIN_SHINGLES: usize = 8;
/// Most shingles a text may have for its set of shingles to be kept
/// exactly beside its sketch (at most 512 bytes). Repeats count: telling
/// a long text of few distinct shingles would take sorting every text of
/// a few hundred, a tenth of a second of a cold check on 100k records.
pub(crate) const EXACT_UP_TO: usize = 128;

/// The distinct shingles of a short text, 32 bits of each one's hash,
/// sorted, four little-endian bytes each (kept as the record table stores
/// them: a warm check copies them, it does not decode them): two such
/// sets give the Jaccard similarity exactly (two of a text's shingles
/// share 32 bits about once in 2^32 / 128^2 texts).
pub(crate) type Shingles = Box<[u8]>;

/// A text as `content/duplicate` compares it: its sketch, and its
/// [`Shingles`] when it is short.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Likeness<'a> {
    pub sketch: &'a Sketch,
    pub shingles: Option<&'a [u8]>,
}

impl Likeness<'_> {
    /// How alike the two texts are, from 0 to 1: the Jaccard similarity of
    /// their shingle sets, exact when both are short, else estimated from
    /// the sketches ([`Sketch::similarity`]).
    pub(crate) fn similarity(&self, other: &Likeness) -> f64 {
        match (self.shingles, other.shingles) {
            (Some(a), Some(b)) => jaccard(a, b),
            _ => self.sketch.similarity(other.sketch),
        }
    }

    /// [`Likeness::similarity`] when it is at least `ratio`. Two short
    /// texts are counted exactly only when their sketches' estimate comes
    /// within five of its standard deviations of `ratio` (a cold check on
    /// many records meets millions of candidate pairs, most far apart).
    pub(crate) fn at_least(&self, other: &Likeness, ratio: f64) -> Option<f64> {
        let estimate = self.sketch.similarity(other.sketch);
        let alike = match (self.shingles, other.shingles) {
            (Some(a), Some(b)) => {
                if !may_reach(estimate, ratio, a.len().min(b.len()) / 4) {
                    return None;
                }
                jaccard(a, b)
            }
            _ => estimate,
        };
        (alike >= ratio).then_some(alike)
    }
}

/// Whether two short texts whose sketches estimate `estimate`, the smaller
/// having `n` distinct shingles, may be at least `ratio` alike: whether
/// their shingles are worth counting.
pub(crate) fn may_reach(estimate: f64, ratio: f64, n: usize) -> bool {
    estimate >= ratio - estimate_margin(n)
}

/// How far the sketches' estimate of two texts' similarity may stray from
/// it, the smaller of them having `n` distinct shingles: five standard
/// deviations of a share of `k` samples (at most `0.5 / sqrt(k)`), `k`
/// being the bins `n` shingles fill (`BINS * (1 - e^(-n / BINS))`).
fn estimate_margin(n: usize) -> f64 {
    let filled = BINS as f64 * (1.0 - (-(n as f64) / BINS as f64).exp());
    2.5 / filled.max(1.0).sqrt()
}

/// The Jaccard similarity of two sets of [`Shingles`] (sorted, without
/// repeats).
pub(crate) fn jaccard(a: &[u8], b: &[u8]) -> f64 {
    let at = |s: &[u8], i: usize| u32::from_le_bytes([s[i], s[i + 1], s[i + 2], s[i + 3]]);
    let (a_len, b_len) = (a.len() / 4 * 4, b.len() / 4 * 4);
    let (mut i, mut j, mut both) = (0, 0, 0usize);
    while i < a_len && j < b_len {
        match at(a, i).cmp(&at(b, j)) {
            std::cmp::Ordering::Less => i += 4,
            std::cmp::Ordering::Greater => j += 4,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 4;
                j += 4;
            }
        }
    }
    let either = a_len / 4 + b_len / 4 - both;
    match either {
        0 => 0.0,
        _ => both as f64 / either as f64,
    }
}

/// A text's sketch: one byte per bin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sketch(pub [u8; BINS]);

impl Sketch {
    /// The sketch of `text`, or `None` when it has fewer than
    /// [`MIN_SHINGLES`] distinct shingles.
    #[cfg(test)] // only the unit tests call it
    pub(crate) fn of(text: &str) -> Option<Sketch> {
        Sketch::of_parts(&[text]).map(|(sketch, _)| sketch)
    }

    /// The sketch of the texts one after the other, as if joined by a line
    /// break (a record's title, then its body), without joining them; and
    /// their [`Shingles`] when there are at most [`EXACT_UP_TO`].
    pub(crate) fn of_parts(parts: &[&str]) -> Option<(Sketch, Option<Shingles>)> {
        let mut mins = [u64::MAX; BINS];
        let mut prev: Option<u64> = None;
        let mut shingles = 0usize;
        // The first shingles, kept while there may be few.
        let mut first = [0u32; EXACT_UP_TO];
        // The first distinct shingles, up to as many as a sketch needs.
        let mut distinct = [0u64; MIN_SHINGLES];
        let mut found = 0usize;
        let mut word = Vec::new();
        for part in parts {
            tokens_with(part, &mut word, &mut |t| {
                if let Some(p) = prev {
                    let x = mix(p.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ t);
                    // The top bits choose the bin, the others are the value.
                    let bin = (x >> (64 - BIN_BITS)) as usize;
                    let v = x & ((1 << (64 - BIN_BITS)) - 1);
                    if v < mins[bin] {
                        mins[bin] = v;
                    }
                    if let Some(slot) = first.get_mut(shingles) {
                        *slot = x as u32;
                    }
                    shingles += 1;
                    // Counting distinct shingles matters only while few.
                    if found < MIN_SHINGLES && !distinct[..found].contains(&x) {
                        distinct[found] = x;
                        found += 1;
                    }
                }
                prev = Some(t);
            });
        }
        if shingles < MIN_SHINGLES || found < MIN_SHINGLES {
            return None;
        }
        let mut out = [0u8; BINS];
        // An empty bin borrows from the next filled one to its right
        // (circularly), told apart by the distance (densification by
        // rotation): one pass from the right, twice round, keeps the next
        // filled bin. At least one bin is filled (there are shingles).
        let mut next = BINS;
        for j in (0..2 * BINS).rev() {
            let i = j % BINS;
            if mins[i] != u64::MAX {
                next = j;
            }
            if j < BINS {
                let (value, dist) = match next {
                    n if n < 2 * BINS => (mins[n % BINS], (n - j) as u64),
                    _ => (0, 0),
                };
                out[i] = mix(value ^ dist.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)) as u8;
            }
        }
        let exact = (shingles <= EXACT_UP_TO).then(|| {
            let mut set = first[..shingles].to_vec();
            set.sort_unstable();
            set.dedup();
            set.iter().flat_map(|x| x.to_le_bytes()).collect()
        });
        Some((Sketch(out), exact))
    }

    /// The estimated Jaccard similarity of the two texts' shingle sets,
    /// from 0 to 1: the share of equal bins, less what one-byte values
    /// agree on by chance.
    pub(crate) fn similarity(&self, other: &Sketch) -> f64 {
        let equal = self.equal_bins(other);
        let chance = 1.0 / 256.0;
        ((equal as f64 / BINS as f64 - chance) / (1.0 - chance)).clamp(0.0, 1.0)
    }

    /// How many bins hold the same byte in both sketches: eight bins at a
    /// time (a cold check compares millions of candidate pairs, and the
    /// byte-by-byte count was a tenth of its time on 100k records).
    pub(crate) fn equal_bins(&self, other: &Sketch) -> usize {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let mut differ = 0u32;
        for (a, b) in self.0.chunks_exact(8).zip(other.0.chunks_exact(8)) {
            let (Ok(a), Ok(b)) = (<[u8; 8]>::try_from(a), <[u8; 8]>::try_from(b)) else {
                continue;
            };
            let x = u64::from_le_bytes(a) ^ u64::from_le_bytes(b);
            // The top bit of each byte of `x` that is not zero.
            let nonzero = (((x & LOW7) + LOW7) | x) & !LOW7;
            differ += nonzero.count_ones();
        }
        BINS - differ as usize
    }

    /// The key of band `band` (its [`ROWS`] bytes).
    pub(crate) fn band(&self, band: usize) -> u32 {
        let b = &self.0[band * ROWS..band * ROWS + ROWS];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

/// A 64-bit finaliser (splitmix64's), so that neighbouring inputs spread.
#[inline(always)]
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Calls `emit` with the hash of every normalised token of `text`, in
/// order: words of letters and digits, lowercased; CJK runs as
/// overlapping character bigrams (a one-character run as itself).
#[cfg(test)] // only the unit tests call it
pub(crate) fn tokens(text: &str, mut emit: impl FnMut(u64)) {
    tokens_with(text, &mut Vec::new(), &mut emit);
}

/// What a byte is to the tokenizer.
const SEP: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const WIDE: u8 = 3;
static CLASS: [u8; 256] = {
    let mut t = [SEP; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            b'a'..=b'z' | b'0'..=b'9' => LOWER,
            b'A'..=b'Z' => UPPER,
            0x80..=0xff => WIDE,
            _ => SEP,
        };
        b += 1;
    }
    t
};

/// Whether `c` is in a run of CJK letters: the common blocks without a
/// table search.
#[inline]
fn cjk_letter(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF) || crate::syntax::cjk::in_cjk_run(c)
}

/// [`tokens`] with a buffer for the current word (lowercased UTF-8). A
/// run of ASCII letters and digits that is a whole word in lowercase is
/// hashed where it stands (the common case, no copy); other words are
/// lowercased into `word`.
#[inline(always)] // one loop with `emit` inside: called through a function, it took 1.7x the time
fn tokens_with<F: FnMut(u64)>(text: &str, word: &mut Vec<u8>, emit: &mut F) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut cjk_prev: Option<char> = None;
    let mut cjk_run = 0usize;
    let mut i = 0;
    macro_rules! flush_cjk {
        () => {
            if cjk_run == 1 {
                if let Some(c) = cjk_prev {
                    emit(char_hash(c, None));
                }
            }
            cjk_prev = None;
            cjk_run = 0;
        };
    }
    macro_rules! end_word {
        () => {
            if !word.is_empty() {
                emit(xxh3_64(word));
                word.clear();
            }
        };
    }
    while i < n {
        // Between tokens, in a stretch of ASCII: a block at a time.
        if word.is_empty() && cjk_run == 0 {
            // Block after block until a word or a character goes on
            // past one.
            loop {
                let next = ascii_block(bytes, i, emit);
                let stuck = next == i;
                i = next;
                if stuck || i == n {
                    break;
                }
            }
            if i == n {
                break;
            }
        }
        let class = CLASS[bytes[i] as usize];
        if class == SEP {
            if cjk_run > 0 {
                flush_cjk!();
            }
            end_word!();
            i += 1;
            continue;
        }
        if class != WIDE {
            if cjk_run > 0 {
                flush_cjk!();
            }
            let start = i;
            let (end, upper) = ascii_run(bytes, i);
            i = end;
            let run = &bytes[start..i];
            // The word ends here when ASCII (or nothing) follows.
            let ends = i == n || bytes[i] < 0x80;
            if word.is_empty() && ends && !upper {
                emit(xxh3_64(run));
            } else if word.is_empty() && ends && run.len() <= 32 {
                // A capitalised word, lowercased on the stack.
                let mut lower = [0u8; 32];
                for (l, b) in lower.iter_mut().zip(run) {
                    *l = b.to_ascii_lowercase();
                }
                emit(xxh3_64(&lower[..run.len()]));
            } else {
                word.extend(run.iter().map(u8::to_ascii_lowercase));
            }
            continue;
        }
        let b = bytes[i];
        let (c, len) = if b & 0xF0 == 0xE0 && i + 2 < n {
            // Three bytes (every CJK letter of the common blocks).
            let c = (u32::from(b & 0x0F) << 12)
                | (u32::from(bytes[i + 1] & 0x3F) << 6)
                | u32::from(bytes[i + 2] & 0x3F);
            (char::from_u32(c), 3)
        } else {
            let c = text[i..].chars().next();
            (c, c.map_or(1, char::len_utf8))
        };
        let Some(c) = c else {
            break;
        };
        i += len;
        if cjk_letter(c) {
            end_word!();
            if let Some(p) = cjk_prev {
                emit(char_hash(p, Some(c)));
            }
            cjk_prev = Some(c);
            cjk_run += 1;
            continue;
        }
        flush_cjk!();
        // The ideographic full stop and comma end a run without a Unicode
        // table lookup.
        if !matches!(c, '。' | '、') && c.is_alphanumeric() {
            for l in c.to_lowercase() {
                word.extend_from_slice(l.encode_utf8(&mut [0u8; 4]).as_bytes());
            }
        } else {
            end_word!();
        }
    }
    // The end of the text ends a one-letter CJK run and a word.
    if cjk_run == 1 {
        if let Some(c) = cjk_prev {
            emit(char_hash(c, None));
        }
    }
    end_word!();
}

/// Bytes [`ascii_block`] looks at at once.
const BLOCK: usize = 64;

/// Emits the words of ASCII letters and digits that lie whole in the
/// [`BLOCK`] bytes from `i` (each followed, within the block, by an ASCII
/// byte that is neither, or by the end of the text), up to the first byte
/// that is not ASCII; returns where the tokenizer goes on: the start of a
/// word that reaches the end of the block or a non-ASCII byte (it may go
/// on), that byte, or the end of the block or text. The block is
/// classified and lowercased at once (a copy on the stack), and each word
/// hashed from the copy without a branch on its case.
#[inline(always)]
fn ascii_block<F: FnMut(u64)>(bytes: &[u8], i: usize, emit: &mut F) -> usize {
    let mut lowered = [0u8; BLOCK];
    let rest = bytes.len() - i;
    let (alnum, high) = match rest >= BLOCK {
        true => lowered_block(&bytes[i..i + BLOCK], &mut lowered),
        false => {
            // The end of the text: spaces after it end its last word.
            let mut padded = [b' '; BLOCK];
            padded[..rest].copy_from_slice(&bytes[i..]);
            lowered_block(&padded, &mut lowered)
        }
    };
    // Bytes from the first non-ASCII one on are left to the caller.
    let limit = high.trailing_zeros() as usize;
    let mut words = match limit {
        BLOCK => alnum,
        _ => alnum & ((1u64 << limit) - 1),
    };
    while words != 0 {
        let s = words.trailing_zeros() as usize;
        let len = (!(words >> s)).trailing_zeros() as usize;
        let e = s + len;
        if e >= limit {
            return i + s;
        }
        words &= !(((1u64 << len) - 1) << s);
        emit(xxh3_64(&lowered[s..e]));
    }
    i + limit.min(rest)
}

/// Copies the [`BLOCK`] bytes of `block` into `out` with ASCII letters
/// lowercased; returns which of them are ASCII letters or digits and which
/// are not ASCII, one bit each (bit k for byte k).
#[inline(always)]
fn lowered_block(block: &[u8], out: &mut [u8; BLOCK]) -> (u64, u64) {
    assert!(block.len() >= BLOCK);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of x86-64 itself, so every processor this
        // code runs on has it; `block` holds BLOCK bytes (checked above).
        unsafe { lowered_sse2(block, out) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (mut alnum, mut high) = (0u64, 0u64);
        for (k, chunk) in block[..BLOCK].chunks_exact(8).enumerate() {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(chunk);
            let (a, _, h) = ascii_masks(u64::from_le_bytes(eight));
            alnum |= a << (8 * k);
            high |= h << (8 * k);
        }
        for (o, b) in out.iter_mut().zip(&block[..BLOCK]) {
            *o = b.to_ascii_lowercase();
        }
        (alnum, high)
    }
}

/// [`lowered_block`] sixteen bytes at a time: a letter is a byte whose
/// lowercase (`| 0x20`) is in `a..=z`, a digit one in `0..=9`, each range
/// checked by one signed comparison after moving its start to -128.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn lowered_sse2(block: &[u8], out: &mut [u8; BLOCK]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let (mut alnum, mut high) = (0u64, 0u64);
    let from = |lo: u8| _mm_set1_epi8(0x80u8.wrapping_sub(lo) as i8);
    let below = |n: u8| _mm_set1_epi8((0x80u8 + n) as i8);
    let case = _mm_set1_epi8(0x20);
    for k in 0..BLOCK / 16 {
        // SAFETY: 16 bytes from 16 * k < BLOCK, within `block` (the
        // caller checked that it holds BLOCK) and within `out`; unaligned
        // loads and stores are allowed.
        let x = unsafe { _mm_loadu_si128(block.as_ptr().add(16 * k).cast()) };
        let lower = _mm_or_si128(x, case);
        let letter = _mm_cmplt_epi8(_mm_add_epi8(lower, from(b'a')), below(26));
        let digit = _mm_cmplt_epi8(_mm_add_epi8(x, from(b'0')), below(10));
        let word = _mm_or_si128(letter, digit);
        let lowered = _mm_or_si128(x, _mm_and_si128(letter, case));
        // SAFETY: as the load, within `out`.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().add(16 * k).cast(), lowered) };
        alnum |= u64::from(_mm_movemask_epi8(word) as u16) << (16 * k);
        high |= u64::from(_mm_movemask_epi8(x) as u16) << (16 * k);
    }
    (alnum, high)
}

/// Of the 8 bytes of `x` (little-endian): which are ASCII letters or
/// digits, which of those uppercase, and which are not ASCII, one bit
/// each (bit k for byte k).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn ascii_masks(x: u64) -> (u64, u64, u64) {
    const H: u64 = 0x8080_8080_8080_8080;
    const fn rep(b: u8) -> u64 {
        (b as u64) * 0x0101_0101_0101_0101
    }
    let y = x | H;
    let within = |lo: u8, hi: u8| (y.wrapping_sub(rep(lo)) & !y.wrapping_sub(rep(hi + 1))) & H;
    let ascii = !x & H;
    let upper = within(b'A', b'Z') & ascii;
    let word = (within(b'a', b'z') | within(b'0', b'9') | upper) & ascii;
    // The top bit of each byte gathered into the low byte.
    let gather = |m: u64| ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
    (gather(word), gather(upper), gather(x & H))
}

/// The end of the run of ASCII letters and digits from `i`, and whether
/// it holds an uppercase letter: eight bytes at a time while they last.
#[inline(always)]
fn ascii_run(bytes: &[u8], mut i: usize) -> (usize, bool) {
    let mut upper = false;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(chunk);
        let (len, up) = ascii_word_prefix(u64::from_le_bytes(eight));
        upper |= up;
        i += len;
        if len < 8 {
            return (i, upper);
        }
    }
    while let Some(&b) = bytes.get(i) {
        match CLASS[b as usize] {
            LOWER => {}
            UPPER => upper = true,
            _ => break,
        }
        i += 1;
    }
    (i, upper)
}

/// How many of the 8 bytes of `x` (little-endian), from the first, are
/// ASCII letters or digits, and whether one of those is uppercase: each
/// byte's range checked in its top bit, all eight at once.
#[inline(always)]
fn ascii_word_prefix(x: u64) -> (usize, bool) {
    const H: u64 = 0x8080_8080_8080_8080;
    const fn rep(b: u8) -> u64 {
        (b as u64) * 0x0101_0101_0101_0101
    }
    // With each byte's top bit set, subtracting a byte below 0x80 never
    // borrows from the next byte: the top bit then says `byte >= lo`.
    let y = x | H;
    let within = |lo: u8, hi: u8| (y.wrapping_sub(rep(lo)) & !y.wrapping_sub(rep(hi + 1))) & H;
    let upper = within(b'A', b'Z');
    let word = (within(b'a', b'z') | within(b'0', b'9') | upper) & !(x & H);
    let len = ((!word & H).trailing_zeros() / 8) as usize;
    let prefix = match len {
        8 => u64::MAX,
        _ => (1u64 << (len * 8)) - 1,
    };
    (len, upper & prefix != 0)
}

fn char_hash(a: char, b: Option<char>) -> u64 {
    let b = b.map_or(0, |c| c as u64 + 1);
    mix(((a as u64) << 32 | b) ^ 0x5851_F42D_4C95_7F2D)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokenizer as it was before the ASCII fast path, char by char.
    fn reference(text: &str, word: &mut String, emit: &mut dyn FnMut(u64)) {
        let mut cjk_prev: Option<char> = None;
        let mut cjk_run = 0usize;
        let flush_cjk = |prev: &mut Option<char>, run: &mut usize, emit: &mut dyn FnMut(u64)| {
            if *run == 1 {
                if let Some(c) = *prev {
                    emit(char_hash(c, None));
                }
            }
            *prev = None;
            *run = 0;
        };
        let end_word = |word: &mut String, emit: &mut dyn FnMut(u64)| {
            if !word.is_empty() {
                emit(xxh3_64(word.as_bytes()));
                word.clear();
            }
        };
        for c in text.chars() {
            // ASCII is never in a CJK run: no table lookup for it.
            if c.is_ascii() {
                if cjk_run > 0 {
                    flush_cjk(&mut cjk_prev, &mut cjk_run, emit);
                }
                if c.is_ascii_alphanumeric() {
                    word.push(c.to_ascii_lowercase());
                } else {
                    end_word(word, emit);
                }
                continue;
            }
            if crate::syntax::cjk::in_cjk_run(c) {
                end_word(word, emit);
                if let Some(p) = cjk_prev {
                    emit(char_hash(p, Some(c)));
                }
                cjk_prev = Some(c);
                cjk_run += 1;
                continue;
            }
            flush_cjk(&mut cjk_prev, &mut cjk_run, emit);
            if c.is_alphanumeric() {
                word.extend(c.to_lowercase());
            } else {
                end_word(word, emit);
            }
        }
        flush_cjk(&mut cjk_prev, &mut cjk_run, emit);
        end_word(word, emit);
    }

    #[test]
    fn fast_tokens_are_the_char_by_char_tokens() {
        let texts = [
            "Cache product pages at the CDN, then purge by key.",
            "MixedCase words and ALLCAPS and digits 42abc x9",
            "café Straße ÉCOLE naïve-résumé déjà",
            "検索の設計 and 漢 a 字 mixed日本語text",
            "abcé日本 x日 日x  trailing",
            "",
            "a",
            "Ωmega ωmega word😀emoji",
            "İstanbul STRASSE straße ǅemal ŉ",
            "日本語。次の文、そして，最後 ｱｲｳ 가나다 𠀀𠀁 々〆〡 ー\u{3000}（括弧）",
            "Word日本 日本Word café日本 日本café 。a。 、b、 x。 。",
            "UPPER-lower MiXeD9 9Mixed ab\tcd\nEF",
            "supercalifragilistic abcdefghijklmnopqrstuvwxyz0123456789 ABCDEFGHIJKLMNOPQ",
            "lowercaseonlyY0 twelveletter twelveLetter sixteenletters!x eightchr eightchR",
        ];
        for text in texts {
            let mut fast = Vec::new();
            tokens(text, |t| fast.push(t));
            let mut slow = Vec::new();
            reference(text, &mut String::new(), &mut |t| slow.push(t));
            assert_eq!(fast, slow, "{text}");
        }
    }

    #[test]
    fn fast_tokens_are_the_char_by_char_tokens_on_random_texts() {
        // Every path of the tokenizer: ASCII of both cases, letters whose
        // lowercase is longer, CJK of two to four bytes, CJK punctuation,
        // emoji, and words running from ASCII into other scripts.
        let alphabet: Vec<char> =
            "aZz09 .-_\n\tAbcXYéÉßİΩω日本語。、，ｱ가𠀀😀々〆〡ー\u{3000}\u{FF08}ŉǅ"
                .chars()
                .collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        // Long texts mostly of ASCII words, so that whole blocks of ASCII
        // are tokenized at once, with words of every length (over 32
        // capitalised ones too) across the blocks' ends.
        let ascii: Vec<char> = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ ,.-\n"
            .chars()
            .collect();
        for round in 0..40_000 {
            let long = round % 2 == 1;
            let len = match long {
                true => next() % 400,
                false => next() % 40,
            };
            let text: String = (0..len)
                .map(|_| match long && next() % 16 != 0 {
                    true => ascii[next() % ascii.len()],
                    false => alphabet[next() % alphabet.len()],
                })
                .collect();
            let mut fast = Vec::new();
            tokens(&text, |t| fast.push(t));
            let mut slow = Vec::new();
            reference(&text, &mut String::new(), &mut |t| slow.push(t));
            assert_eq!(fast, slow, "{text:?}");
        }
    }

    #[test]
    fn the_masks_of_eight_bytes_are_each_bytes_class() {
        let mut state = 0x0fed_cba9_8765_4321u64;
        for round in 0..100_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            // Half the rounds from letters, digits and punctuation only.
            let x = match round % 2 {
                0 => state,
                _ => state & 0x7f7f_7f7f_7f7f_7f7f,
            };
            let (word, upper, high) = ascii_masks(x);
            for (k, b) in x.to_le_bytes().into_iter().enumerate() {
                let bit = |m: u64| m >> k & 1 == 1;
                assert_eq!(bit(word), b.is_ascii_alphanumeric(), "{x:#x} byte {k}");
                assert_eq!(bit(upper), b.is_ascii_uppercase(), "{x:#x} byte {k}");
                assert_eq!(bit(high), !b.is_ascii(), "{x:#x} byte {k}");
            }
            assert_eq!(word >> 8 | upper >> 8 | high >> 8, 0);
        }
    }

    #[test]
    fn a_block_at_once_is_one_byte_at_a_time() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        // Every byte value at every place of a block, then random blocks
        // with the edges of each range as often as anything.
        let mut blocks: Vec<[u8; BLOCK]> = (0..=255u8)
            .map(|b| {
                let mut block = [0u8; BLOCK];
                for (k, x) in block.iter_mut().enumerate() {
                    *x = b.wrapping_add(k as u8 * 4);
                }
                block
            })
            .collect();
        let picks = b"@AZ[`az{/09:\x7f\x80\xff\xc0\xe0\xfa\xda _-";
        for _ in 0..20_000 {
            let mut block = [0u8; BLOCK];
            for x in block.iter_mut() {
                state = mix(state.wrapping_add(1));
                *x = match state >> 63 {
                    0 => picks[state as usize % picks.len()],
                    _ => state as u8,
                };
            }
            blocks.push(block);
        }
        for block in blocks {
            let mut out = [7u8; BLOCK];
            let (alnum, high) = lowered_block(&block, &mut out);
            for (k, b) in block.iter().enumerate() {
                let bit = |m: u64| m >> k & 1 == 1;
                assert_eq!(bit(alnum), b.is_ascii_alphanumeric(), "{block:?} {k}");
                assert_eq!(bit(high), !b.is_ascii(), "{block:?} {k}");
                assert_eq!(out[k], b.to_ascii_lowercase(), "{block:?} {k}");
            }
        }
    }

    #[test]
    fn words_of_every_length_hash_as_their_lowercase() {
        // The block path hashes a word from its lowered copy of the block,
        // the other paths from the word: the same hash for every length,
        // across the blocks' ends and at the end of the text.
        let text: String = (1..=40)
            .map(|n| "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd"[..n].to_string() + " ")
            .collect::<String>()
            .repeat(3);
        let mut got = Vec::new();
        tokens(&text, |t| got.push(t));
        let want: Vec<u64> = text
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(|w| xxh3_64(w.to_ascii_lowercase().as_bytes()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn eight_bytes_at_once_are_one_byte_at_a_time() {
        let naive = |x: u64| {
            let bytes = x.to_le_bytes();
            let len = bytes
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            (len, bytes[..len].iter().any(u8::is_ascii_uppercase))
        };
        let mut state = 0x0123_4567_89ab_cdefu64;
        for _ in 0..100_000 {
            state = mix(state.wrapping_add(1));
            // Bytes from the edges of each range as often as from anywhere.
            let picks = b"@AZ[`az{/09:\x7f\x80\xff _-";
            let mut bytes = state.to_le_bytes();
            for (k, b) in bytes.iter_mut().enumerate() {
                if (state >> (k + 56)) & 1 == 0 {
                    *b = picks[*b as usize % picks.len()];
                }
            }
            let x = u64::from_le_bytes(bytes);
            assert_eq!(ascii_word_prefix(x), naive(x), "{bytes:?}");
        }
        for b in 0..=255u8 {
            let x = u64::from_le_bytes([b; 8]);
            assert_eq!(ascii_word_prefix(x), naive(x), "{b}");
        }
    }

    fn sim(a: &str, b: &str) -> f64 {
        Sketch::of(a).unwrap().similarity(&Sketch::of(b).unwrap())
    }

    #[test]
    fn same_words_whatever_the_case_and_punctuation() {
        let a = "Cache product pages at the CDN for five minutes, then purge by key.";
        let b = "cache PRODUCT pages -- at the cdn for five minutes; then *purge* by key";
        assert_eq!(Sketch::of(a), Sketch::of(b));
        assert!((sim(a, b) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn near_copies_are_alike_and_other_texts_are_not() {
        let a = "Use Postgres for the response cache. Every worker sees the same cache, \
                 entries expire after ten minutes and the table is vacuumed nightly.";
        let b = "Use Postgres for the response cache. Every worker sees the same cache, \
                 entries expire after fifteen minutes and the table is vacuumed nightly.";
        let c = "Release builds use thin LTO because fat LTO took forty minutes on the \
                 two-core runners and gained nothing measurable in the benchmarks.";
        assert!(sim(a, b) > 0.6, "{}", sim(a, b));
        assert!(sim(a, c) < 0.2, "{}", sim(a, c));
    }

    #[test]
    fn cjk_is_compared_by_bigrams() {
        let a = "レスポンスキャッシュは共有のPostgresに置き、全ワーカーが同じ内容を参照する。";
        let b = "レスポンスキャッシュは共有のPostgresに置き、全ワーカーが同じ内容を見る。";
        let c = "リリースビルドはthin LTOを使う。fat LTOは遅すぎて効果がなかった。";
        assert!(sim(a, b) > 0.6, "{}", sim(a, b));
        assert!(sim(a, c) < 0.2, "{}", sim(a, c));
    }

    #[test]
    fn the_estimate_is_close_to_the_jaccard_similarity() {
        // Texts of 200 distinct words, pairs sharing the first `shared`:
        // their shingle sets overlap by (shared - 1) / (398 - (shared - 1)).
        // Over 20 vocabularies the estimate is off by little on average
        // and never by much.
        for shared in [100usize, 150, 180] {
            let want = (shared - 1) as f64 / (2.0 * 199.0 - (shared - 1) as f64);
            let mut total = 0.0;
            for seed in 0..20 {
                let words: Vec<String> = (0..400).map(|i| format!("w{seed}x{i}")).collect();
                let a = words[..200].join(" ");
                let b = [&words[..shared], &words[200..400 - shared]]
                    .concat()
                    .join(" ");
                let got = Sketch::of(&a).unwrap().similarity(&Sketch::of(&b).unwrap());
                assert!((got - want).abs() < 0.15, "{shared}: {got} vs {want}");
                total += (got - want).abs();
            }
            assert!(total / 20.0 < 0.04, "{shared}: mean error {}", total / 20.0);
        }
    }

    #[test]
    fn equal_bins_counts_byte_by_byte() {
        let mut state = 0x1234_5678_9abc_def0u64;
        for round in 0..2000 {
            let mut a = [0u8; BINS];
            let mut b = [0u8; BINS];
            for i in 0..BINS {
                state = mix(state.wrapping_add(i as u64));
                a[i] = state as u8;
                // Bytes equal with a share that varies by round, and
                // values with every bit pattern (0x00, 0x80, 0xff).
                b[i] = match (state >> 8) % 4 {
                    _ if (state >> 16) % 100 < round % 100 => a[i],
                    0 => a[i] ^ 0x80,
                    1 => a[i] ^ 0x01,
                    2 => 0xff,
                    _ => (state >> 24) as u8,
                };
            }
            let naive = a.iter().zip(&b).filter(|(x, y)| x == y).count();
            assert_eq!(Sketch(a).equal_bins(&Sketch(b)), naive);
        }
    }

    /// The densification as it was first written: each empty bin looks
    /// right for the next filled one.
    fn densified_reference(mins: &[u64; BINS]) -> [u8; BINS] {
        let mut out = [0u8; BINS];
        for (i, byte) in out.iter_mut().enumerate() {
            let (value, dist) = (0..BINS)
                .map(|d| (mins[(i + d) % BINS], d as u64))
                .find(|(v, _)| *v != u64::MAX)
                .unwrap_or((0, 0));
            *byte = mix(value ^ dist.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)) as u8;
        }
        out
    }

    #[test]
    fn one_pass_densification_is_the_reference_one() {
        // Texts of every length: from bins mostly empty to all filled.
        for words in [9usize, 12, 20, 40, 80, 160, 400, 1000] {
            let text: String = (0..words)
                .map(|i| format!("w{} ", i * 7919 % 1009))
                .collect();
            let mut mins = [u64::MAX; BINS];
            let mut prev: Option<u64> = None;
            tokens(&text, |t| {
                if let Some(p) = prev {
                    let x = mix(p.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ t);
                    let bin = (x >> (64 - BIN_BITS)) as usize;
                    let v = x & ((1 << (64 - BIN_BITS)) - 1);
                    mins[bin] = mins[bin].min(v);
                }
                prev = Some(t);
            });
            let sketch = Sketch::of(&text).expect("sketch");
            assert_eq!(sketch.0, densified_reference(&mins), "{words} words");
        }
    }

    #[test]
    fn short_texts_have_no_sketch() {
        assert_eq!(Sketch::of("Use Redis."), None);
        assert_eq!(Sketch::of("a a a a a a a a a a a a a a a a a a"), None);
        assert_eq!(Sketch::of(""), None);
    }

    /// The Jaccard similarity of two ASCII texts' sets of neighbouring
    /// word pairs, from the words themselves (no hashing).
    fn word_pair_jaccard(a: &str, b: &str) -> f64 {
        let pairs = |t: &str| {
            let words: Vec<String> = t
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_ascii_lowercase)
                .collect();
            words
                .windows(2)
                .map(|w| (w[0].clone(), w[1].clone()))
                .collect::<std::collections::BTreeSet<_>>()
        };
        let (x, y) = (pairs(a), pairs(b));
        x.intersection(&y).count() as f64 / x.union(&y).count() as f64
    }

    fn likeness(text: &str) -> (Sketch, Option<Shingles>) {
        Sketch::of_parts(&[text]).expect("a sketch")
    }

    #[test]
    fn short_texts_are_compared_exactly() {
        // Random texts of 10 to 60 words from a small vocabulary, each
        // paired with a copy where some words were replaced: the
        // similarity of two short texts is their word pairs' Jaccard
        // similarity exactly, where the sketches' estimate strays.
        let vocabulary: Vec<String> = (0..40).map(|i| format!("w{i}x")).collect();
        let mut state = 0x5eed_u64;
        let mut next = |n: usize| {
            state = mix(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
            (state % n as u64) as usize
        };
        let (mut strayed, mut compared) = (0, 0);
        for _ in 0..20_000 {
            let len = 10 + next(51);
            let a: Vec<&str> = (0..len).map(|_| vocabulary[next(40)].as_str()).collect();
            let mut b = a.clone();
            for _ in 0..next(6 + len / 2) {
                let at = next(len);
                b[at] = vocabulary[next(40)].as_str();
            }
            let (a, b) = (a.join(" "), b.join(". "));
            let (Some((sa, xa)), Some((sb, xb))) =
                (Sketch::of_parts(&[&a]), Sketch::of_parts(&[&b]))
            else {
                continue;
            };
            let (xa, xb) = (xa.expect("short"), xb.expect("short"));
            let like = |sketch, shingles| Likeness { sketch, shingles };
            let got = like(&sa, Some(&xa)).similarity(&like(&sb, Some(&xb)));
            let want = word_pair_jaccard(&a, &b);
            assert!((got - want).abs() < 1e-12, "{got} {want}\n{a}\n{b}");
            // Either way round.
            assert_eq!(got, like(&sb, Some(&xb)).similarity(&like(&sa, Some(&xa))));
            // The estimate never keeps a pair from being counted: at a
            // threshold just under its similarity, the pair is found.
            let (la, lb) = (like(&sa, Some(&xa)), like(&sb, Some(&xb)));
            if want > 0.0 {
                assert_eq!(la.at_least(&lb, want - 1e-9), Some(got), "{a}\n{b}");
            }
            assert_eq!(la.at_least(&lb, want + 1e-9), None);
            compared += 1;
            if (sa.similarity(&sb) - want).abs() >= 0.05 {
                strayed += 1;
            }
        }
        assert!(compared > 19_000, "{compared}");
        // What the exact comparison is for: the estimate is often off.
        assert!(strayed > compared / 10, "{strayed} of {compared}");
    }

    #[test]
    fn only_texts_of_at_most_128_shingles_keep_them() {
        let words = |n: usize| {
            (0..n)
                .map(|i| format!("w{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        // n words make n - 1 shingles.
        let (_, set) = likeness(&words(129));
        let set = numbers(&set.expect("kept"));
        assert_eq!(set.len(), EXACT_UP_TO);
        assert!(set.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
        assert_eq!(likeness(&words(130)).1, None);
        // Repeats count once in the set, but every shingle counts toward
        // the limit.
        let (_, set) = likeness("one two three four five six seven eight nine ten one two three");
        assert_eq!(set.map(|s| s.len()), Some(4 * 10));
    }

    /// A set of shingles as the numbers it holds.
    fn numbers(set: &[u8]) -> Vec<u32> {
        set.chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }

    /// Numbers as a set of shingles.
    fn set(numbers: &[u32]) -> Vec<u8> {
        numbers.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn a_short_and_a_long_text_are_compared_by_their_sketches() {
        let long = (0..200)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let short = (0..100)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let ((sl, xl), (ss, xs)) = (likeness(&long), likeness(&short));
        assert!(xl.is_none() && xs.is_some());
        let l = Likeness {
            sketch: &sl,
            shingles: None,
        };
        let s = Likeness {
            sketch: &ss,
            shingles: xs.as_deref(),
        };
        assert_eq!(l.similarity(&s), sl.similarity(&ss));
    }

    #[test]
    fn jaccard_of_sorted_sets() {
        assert_eq!(jaccard(&set(&[1, 2, 3]), &set(&[2, 3, 4])), 0.5);
        assert_eq!(jaccard(&set(&[1, 2]), &set(&[1, 2])), 1.0);
        assert_eq!(jaccard(&set(&[1]), &set(&[2])), 0.0);
        assert_eq!(jaccard(&[], &[]), 0.0);
        // Bytes order within a number is not the numbers' order.
        assert_eq!(jaccard(&set(&[255, 256]), &set(&[256, 511])), 1.0 / 3.0);
    }
}
