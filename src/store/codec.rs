//! The one binary codec of `.memlint/` (the record table, the listing, the
//! slug clusters, the search index and the context material): a
//! `Writer` of LEB128 integers and length-prefixed strings that ends
//! with an xxh3-64 checksum of everything before it, and a `Reader` that
//! never trusts what it reads (every count is bounded by the bytes left).
//! A file opens with its magic and [`FORMAT`], checked by `checked`.

use crate::io::cache::FORMAT;
use crate::io::stat::Stat;
use crate::lint::Located;
use std::ops::Range;
use xxhash_rust::xxh3::xxh3_64;

/// The checksum that ends a cache file.
pub(crate) fn trailer(bytes: &[u8]) -> Option<u64> {
    let at = bytes.len().checked_sub(8)?;
    Some(u64::from_le_bytes(bytes[at..].try_into().ok()?))
}

pub(crate) struct Writer {
    pub(crate) buf: Vec<u8>,
}

impl Writer {
    pub(crate) fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub(crate) fn uint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    pub(crate) fn int(&mut self, v: i64) {
        self.uint(((v << 1) ^ (v >> 63)) as u64);
    }

    pub(crate) fn usize(&mut self, v: usize) {
        self.uint(v as u64);
    }

    pub(crate) fn str(&mut self, s: &str) {
        self.usize(s.len());
        self.buf.extend_from_slice(s.as_bytes());
    }

    pub(crate) fn opt_stat(&mut self, s: Option<&Stat>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.uint(s.size);
                self.int(s.mtime);
                self.int(s.ctime);
                self.uint(s.ino);
            }
        }
    }

    pub(crate) fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
        }
    }

    pub(crate) fn span(&mut self, span: &Range<usize>) {
        self.usize(span.start);
        self.usize(span.end);
    }

    pub(crate) fn located(&mut self, l: &Located) {
        self.str(&l.value);
        self.span(&l.span);
        self.usize(l.line);
        self.usize(l.column);
        self.usize(l.end_line);
        self.usize(l.end_column);
    }
}

impl Writer {
    /// Appends the checksum of everything written.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        let sum = xxh3_64(&self.buf);
        self.buf.extend_from_slice(&sum.to_le_bytes());
        self.buf
    }
}

pub(crate) struct Reader<'a> {
    pub(crate) buf: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    pub(crate) fn u8(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    pub(crate) fn flag(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    pub(crate) fn fixed64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }

    pub(crate) fn uint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    pub(crate) fn int(&mut self) -> Option<i64> {
        let v = self.uint()?;
        Some(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    pub(crate) fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.uint()?).ok()
    }

    pub(crate) fn str(&mut self) -> Option<String> {
        self.str_ref().map(str::to_string)
    }

    /// A string borrowed from the buffer.
    pub(crate) fn str_ref(&mut self) -> Option<&'a str> {
        let n = self.usize()?;
        simdutf8::basic::from_utf8(self.bytes(n)?).ok()
    }

    pub(crate) fn opt_stat(&mut self) -> Option<Option<Stat>> {
        if !self.flag()? {
            return Some(None);
        }
        Some(Some(Stat {
            size: self.uint()?,
            mtime: self.int()?,
            ctime: self.int()?,
            ino: self.uint()?,
        }))
    }

    pub(crate) fn opt_str_ref(&mut self) -> Option<Option<&'a str>> {
        if self.flag()? {
            self.str_ref().map(Some)
        } else {
            Some(None)
        }
    }

    pub(crate) fn opt_str(&mut self) -> Option<Option<String>> {
        if self.flag()? {
            self.str().map(Some)
        } else {
            Some(None)
        }
    }

    pub(crate) fn span(&mut self) -> Option<Range<usize>> {
        Some(self.usize()?..self.usize()?)
    }

    pub(crate) fn located(&mut self) -> Option<Located> {
        Some(Located {
            value: self.str()?,
            span: self.span()?,
            line: self.usize()?,
            column: self.usize()?,
            end_line: self.usize()?,
            end_column: self.usize()?,
        })
    }

    /// A count of items each at least one byte long: never more than what
    /// is left, so garbage cannot make us allocate without bound.
    pub(crate) fn count(&mut self) -> Option<usize> {
        let n = self.usize()?;
        (n <= self.buf.len() - self.pos).then_some(n)
    }
}

/// The body of `bytes` when its trailing checksum is right and it starts
/// with `magic` and this format's version.
pub(crate) fn checked<'a>(bytes: &'a [u8], magic: &[u8; 8]) -> Option<Reader<'a>> {
    let body_len = bytes.len().checked_sub(8)?;
    let (body, sum) = bytes.split_at(body_len);
    if u64::from_le_bytes(sum.try_into().ok()?) != xxh3_64(body) {
        return None;
    }
    let mut r = Reader { buf: body, pos: 0 };
    if r.bytes(magic.len())? != magic {
        return None;
    }
    let format = u32::from_le_bytes(r.bytes(4)?.try_into().ok()?);
    (format == FORMAT).then_some(r)
}

impl<'a> Reader<'a> {
    /// `n` items in strictly increasing path order.
    pub(crate) fn sorted<T>(
        &mut self,
        item: fn(&mut Reader<'a>) -> Option<T>,
        path: fn(&T) -> &str,
    ) -> Option<Vec<T>> {
        let n = self.count()?;
        let mut items: Vec<T> = Vec::with_capacity(n);
        for _ in 0..n {
            let e = item(self)?;
            if items.last().is_some_and(|prev| path(prev) >= path(&e)) {
                return None;
            }
            items.push(e);
        }
        Some(items)
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos == self.buf.len()
    }
}
