//! The language server's standard input and output: the LSP base protocol
//! (`Content-Length` headers, then the JSON body) read here, within
//! bounds, and handed to `lsp-server`'s [`Connection`] over channels.
//! `lsp-server`'s own reader trusts the header and allocates what it
//! declares before reading a byte of the body: a declared length of
//! 100 TB aborts the process, 3 GB is held while the body is awaited.

use crossbeam_channel::bounded;
use lsp_server::{Connection, Message};
use std::io::{BufRead, Read};
use std::thread::JoinHandle;

/// The largest message accepted, in bytes: a document of `max_file_bytes`
/// (1 MiB by default), escaped into JSON, fits many times over.
pub(super) const MESSAGE_MAX: u64 = 16 << 20;

/// The longest header line accepted (`Content-Length: N` is 30 bytes).
const HEADER_LINE_MAX: u64 = 4096;

/// The reader and writer threads.
pub(super) struct IoThreads {
    reader: JoinHandle<Result<(), String>>,
    writer: JoinHandle<std::io::Result<()>>,
}

impl IoThreads {
    /// Waits for both threads: the reader's error (why the input was
    /// given up), else the writer's.
    pub(super) fn join(self) -> Result<(), String> {
        let read = self
            .reader
            .join()
            .unwrap_or_else(|_| Err("the reader thread failed".into()));
        let written = self
            .writer
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the writer thread failed")));
        read?;
        written.map_err(|e| format!("cannot write to standard output: {e}"))
    }
}

/// A connection over standard input and output.
pub(super) fn connection() -> (Connection, IoThreads) {
    let (to_writer, from_server) = bounded::<Message>(0);
    let writer = std::thread::spawn(move || {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        for message in from_server {
            message.write(&mut out)?;
        }
        Ok(())
    });
    let (to_server, from_reader) = bounded::<Message>(0);
    let reader = std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        while let Some(message) = read_message(&mut input)? {
            let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
            if to_server.send(message).is_err() || exit {
                break;
            }
        }
        Ok(())
    });
    let conn = Connection {
        sender: to_writer,
        receiver: from_reader,
    };
    (conn, IoThreads { reader, writer })
}

/// One message, `None` at the end of the input between messages. The
/// header is read line by line, each line bounded; the body only once its
/// declared length is known to be within [`MESSAGE_MAX`].
fn read_message(input: &mut impl BufRead) -> Result<Option<Message>, String> {
    let io = |e: std::io::Error| format!("cannot read standard input: {e}");
    let mut length: Option<u64> = None;
    let mut first = true;
    loop {
        let mut line = Vec::new();
        let n = input
            .by_ref()
            .take(HEADER_LINE_MAX)
            .read_until(b'\n', &mut line)
            .map_err(io)?;
        if n == 0 && first {
            return Ok(None);
        }
        first = false;
        let Some(text) = line.strip_suffix(b"\r\n") else {
            return Err(if n as u64 == HEADER_LINE_MAX {
                format!("a message header line is longer than {HEADER_LINE_MAX} bytes")
            } else if n == 0 {
                "the input ended inside a message header".into()
            } else {
                format!(
                    "malformed message header `{}` (a header line ends with CR LF)",
                    shown(&line)
                )
            });
        };
        if text.is_empty() {
            break;
        }
        let text = String::from_utf8_lossy(text);
        let Some((name, value)) = text.split_once(": ") else {
            return Err(format!(
                "malformed message header `{}`",
                shown(text.as_bytes())
            ));
        };
        if name.eq_ignore_ascii_case("Content-Length") {
            length = Some(content_length(value)?);
        }
    }
    let length = length.ok_or("a message has no Content-Length header")?;
    let mut body = Vec::new();
    input.take(length).read_to_end(&mut body).map_err(io)?;
    if (body.len() as u64) < length {
        return Err(format!(
            "the input ended inside a message ({} of its {length} bytes)",
            body.len()
        ));
    }
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| format!("malformed message: {e}"))
}

/// The value of a `Content-Length` header, within [`MESSAGE_MAX`].
fn content_length(value: &str) -> Result<u64, String> {
    let digits = value.trim();
    let too_large = || {
        format!(
            "a message declares Content-Length {}, more than the {MESSAGE_MAX} bytes a message may have",
            shown(digits.as_bytes())
        )
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "malformed Content-Length `{}`",
            shown(digits.as_bytes())
        ));
    }
    match digits.parse::<u64>() {
        Ok(n) if n <= MESSAGE_MAX => Ok(n),
        _ => Err(too_large()),
    }
}

/// Up to 80 characters of a header, for a message.
fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(320)]);
    crate::syntax::sanitize::line(&text.chars().take(80).collect::<String>()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: &[u8]) -> Result<Option<Message>, String> {
        read_message(&mut std::io::Cursor::new(input))
    }

    #[test]
    fn bounds_the_header_before_the_body() {
        let body = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let ok = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        assert!(matches!(
            read(ok.as_bytes()),
            Ok(Some(Message::Notification(_)))
        ));
        assert!(matches!(read(b""), Ok(None)));
        let e = read(b"Content-Length: 99999999999999\r\n\r\n{").unwrap_err();
        assert!(e.contains("more than the 16777216 bytes"), "{e}");
        let e = read(b"Content-Length: 18446744073709551616\r\n\r\n{").unwrap_err();
        assert!(e.contains("more than the"), "{e}");
        let e = read(b"Content-Length: 10\r\n\r\n{").unwrap_err();
        assert!(e.contains("1 of its 10 bytes"), "{e}");
        let e = read(&vec![b'x'; 10_000]).unwrap_err();
        assert!(e.contains("longer than 4096"), "{e}");
    }
}
