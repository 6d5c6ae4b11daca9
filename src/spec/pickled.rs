//! LiveCodeBench's compressed private tests: base64 of zlib of a pickle of
//! one JSON string (`code_generation.py`, `CodeGenerationProblem`). Nothing
//! is unpickled: this reader takes only the opcodes `pickle.dumps` writes for
//! one `str` (`PROTO`, `FRAME`, one of `SHORT_BINUNICODE`, `BINUNICODE`,
//! `BINUNICODE8`, then an optional `MEMOIZE`, and `STOP`) and refuses
//! anything else, naming the opcode and its place.

use std::io::Read;

/// The most bytes the decompressed pickle may have (LiveCodeBench's largest
/// private tests are tens of megabytes).
pub const MAX_PICKLE_BYTES: u64 = 512 << 20;

/// What the private tests of one file may decompress to in all: 64 times
/// the file's size, and at least 1 GiB. A file of a few megabytes whose
/// records each unpack to hundreds (a compression bomb) is refused before
/// it takes the machine's memory; a real file's tests stay far below.
pub fn file_budget(file_bytes: usize) -> u64 {
    (file_bytes as u64).saturating_mul(64).max(1 << 30)
}

/// The JSON text inside `text` (base64 of zlib of a pickled `str`), or why
/// it is not one.
pub fn decode(text: &str) -> Result<String, String> {
    let mut budget = MAX_PICKLE_BYTES;
    decode_within(text, &mut budget)
}

/// [`decode`], the pickle taken out of `budget`: what is left of the file's
/// [`file_budget`] (and never more than [`MAX_PICKLE_BYTES`] for one).
pub fn decode_within(text: &str, budget: &mut u64) -> Result<String, String> {
    let compressed = base64(text)?;
    let limit = MAX_PICKLE_BYTES.min(*budget);
    let mut pickle = Vec::new();
    flate2::read::ZlibDecoder::new(compressed.as_slice())
        .take(limit + 1)
        .read_to_end(&mut pickle)
        .map_err(|e| format!("not zlib data after base64: {e}"))?;
    if pickle.len() as u64 > MAX_PICKLE_BYTES {
        return Err(format!(
            "the pickle is larger than {} MiB",
            MAX_PICKLE_BYTES >> 20
        ));
    }
    if pickle.len() as u64 > limit {
        return Err(format!(
            "the file's pickled tests unpack to more than it may hold in all (64 times \
             its size, at least 1 GiB); {} MiB were left for this record's",
            *budget >> 20
        ));
    }
    *budget -= pickle.len() as u64;
    read_pickle(&pickle)
}

/// Standard base64 (`+`, `/`, `=` padding); ASCII whitespace is skipped.
fn base64(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    let mut padding = 0;
    for (i, c) in text.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                padding += 1;
                continue;
            }
            c if c.is_ascii_whitespace() => continue,
            _ => return Err(format!("not base64: byte {c:#04x} at offset {i}")),
        };
        if padding > 0 {
            return Err(format!("not base64: data after `=` at offset {i}"));
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 || padding > 2 {
        return Err("not base64: its length is not a whole number of bytes".into());
    }
    Ok(out)
}

const PROTO: u8 = 0x80;
const FRAME: u8 = 0x95;
const SHORT_BINUNICODE: u8 = 0x8c;
const BINUNICODE: u8 = b'X';
const BINUNICODE8: u8 = 0x8d;
const MEMOIZE: u8 = 0x94;
const STOP: u8 = b'.';

/// The one string the pickle `data` holds, or why it holds something else.
pub fn read_pickle(data: &[u8]) -> Result<String, String> {
    let mut pos = 0;
    let mut string: Option<String> = None;
    let mut memoized = false;
    let take = |pos: &mut usize, n: u64| -> Result<std::ops::Range<usize>, String> {
        let start = *pos;
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| start.checked_add(n))
            .filter(|&end| end <= data.len())
            .ok_or_else(|| format!("the pickle ends inside the operand at byte {start}"))?;
        *pos = end;
        Ok(start..end)
    };
    let le = |bytes: &[u8]| {
        bytes
            .iter()
            .rev()
            .fold(0u64, |a, &b| (a << 8) | u64::from(b))
    };
    while pos < data.len() {
        let at = pos;
        let op = data[pos];
        pos += 1;
        match op {
            PROTO if at == 0 => {
                take(&mut pos, 1)?;
            }
            FRAME => {
                take(&mut pos, 8)?;
            }
            SHORT_BINUNICODE | BINUNICODE | BINUNICODE8 if string.is_none() => {
                let width = match op {
                    SHORT_BINUNICODE => 1,
                    BINUNICODE => 4,
                    _ => 8,
                };
                let len = le(&data[take(&mut pos, width)?]);
                let bytes = &data[take(&mut pos, len)?];
                let text = std::str::from_utf8(bytes)
                    .map_err(|_| format!("the string at byte {at} is not UTF-8"))?;
                string = Some(text.to_owned());
            }
            MEMOIZE if string.is_some() && !memoized => memoized = true,
            STOP => {
                if pos != data.len() {
                    return Err(format!("bytes after the pickle's STOP at byte {at}"));
                }
                return string.ok_or_else(|| "the pickle holds no string".to_owned());
            }
            _ => {
                return Err(format!(
                    "the pickle is not one string: opcode {op:#04x} at byte {at} is not taken \
                     (only PROTO, FRAME, one SHORT_BINUNICODE, BINUNICODE or BINUNICODE8, \
                     MEMOIZE and STOP are)"
                ));
            }
        }
    }
    Err("the pickle has no STOP".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(pickle: &[u8]) -> String {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(pickle).unwrap();
        let bytes = z.finish().unwrap();
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n =
                chunk.iter().fold(0u32, |a, &b| (a << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[test]
    fn the_pickles_python_writes_for_a_string_are_read() {
        // pickle.dumps('ab', protocol=4) and a BINUNICODE one.
        let p4 = b"\x80\x04\x95\x06\x00\x00\x00\x00\x00\x00\x00\x8c\x02ab\x94.";
        assert_eq!(decode(&encode(p4)).unwrap(), "ab");
        let big = b"\x80\x04X\x03\x00\x00\x00[1]\x94.";
        assert_eq!(decode(&encode(big)).unwrap(), "[1]");
        let b8 = b"\x80\x05\x8d\x02\x00\x00\x00\x00\x00\x00\x00[]\x94.";
        assert_eq!(decode(&encode(b8)).unwrap(), "[]");
    }

    #[test]
    fn anything_but_one_string_is_refused() {
        for (pickle, says) in [
            // A global: what would run code if it were unpickled.
            (&b"\x80\x04\x8c\x02os\x8c\x06system\x93."[..], "not taken"),
            (b"\x80\x04\x8c\x01a\x8c\x01b.", "0x8c at byte 5"),
            (b"\x80\x04K\x01.", "opcode 0x4b"),
            (b"\x80\x04\x8c\x05ab", "ends inside"),
            (b"\x80\x04\x8c\x01a", "no STOP"),
            (b"\x80\x04.", "no string"),
            (b"\x80\x04\x8c\x01a.x", "after the pickle's STOP"),
            (b"\x80\x04\x8c\x01\xff.", "not UTF-8"),
            (b"\x80\x04X\xff\xff\xff\xff.", "ends inside"),
            (
                b"\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\xff.",
                "ends inside",
            ),
        ] {
            let err = decode(&encode(pickle)).unwrap_err();
            assert!(err.contains(says), "{err} should say {says}");
        }
        assert!(decode("not base64!").unwrap_err().contains("not base64"));
        assert!(decode("AAAA").unwrap_err().contains("zlib"));
        assert!(decode("QQ=A").unwrap_err().contains("after `=`"));
    }
}
