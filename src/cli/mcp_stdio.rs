//! `memlint mcp`'s standard input and output, with a gate between them and
//! the SDK: each line read is handed to the server only when it is JSON
//! and at most [`LINE_MAX`] bytes long. A line that is not JSON (malformed,
//! invalid UTF-8) gets the JSON-RPC parse error (`-32700`, `id: null`); a
//! longer one is read no further than its first 64 KiB, the rest passed
//! over, and gets an invalid-request error (`-32600`) under its `id` when
//! that comes before its parameters. These answers wait in a short queue:
//! a client that does not read them stops being read, rather than have
//! them pile up. One task owns standard output and writes whole lines,
//! the server's and the gate's, so they never interleave: it ends once
//! the server's output and the reader are closed.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The longest request accepted, in bytes (15 MiB): the SDK itself drops
/// lines over 16 MiB without an answer, and below this one a tool call
/// with a body over `max_file_bytes` still gets the tool's own refusal.
pub(super) const LINE_MAX: usize = 15 << 20;

/// How much of a longer line is kept to find its `id`.
const PREFIX_MAX: usize = 64 << 10;

/// How many of the gate's own answers (a few hundred bytes each) may wait
/// for standard output.
const QUEUE: usize = 1024;

/// A line of standard input.
enum Line {
    Whole(Vec<u8>),
    /// Longer than [`LINE_MAX`]: its first bytes, and its length.
    TooLong(Vec<u8>, usize),
}

/// The next line (its newline included), `None` at the end of the input.
async fn read_line(input: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Option<Line>> {
    let mut kept = Vec::new();
    let mut total = 0usize;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            break;
        }
        let (n, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let room = if total + n <= LINE_MAX {
            n
        } else {
            kept.truncate(PREFIX_MAX);
            kept.shrink_to_fit();
            PREFIX_MAX.saturating_sub(kept.len()).min(n)
        };
        if kept.len() + room > kept.capacity() && kept.len() + room > PREFIX_MAX {
            // A long line: room for the whole bound at once, its pages
            // touched only as they are filled (no copies as it grows).
            kept.reserve_exact(LINE_MAX.saturating_sub(kept.len()));
        }
        kept.extend_from_slice(&buf[..room]);
        total += n;
        input.consume(n);
        if done {
            break;
        }
    }
    Ok(match total {
        0 => None,
        t if t > LINE_MAX => Some(Line::TooLong(kept, t)),
        _ => Some(Line::Whole(kept)),
    })
}

/// The gate's answer to `line`, `None` when it goes to the server.
fn judge(line: &[u8]) -> Result<(), Value> {
    let text = std::str::from_utf8(line).map_err(|e| e.to_string());
    let parsed = text.and_then(|t| {
        if t.trim().is_empty() {
            return Ok(());
        }
        serde_json::from_str::<Value>(t)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    parsed.map_err(|why| {
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32700, "message": format!("Parse error: {why}")},
        })
    })
}

/// The `id` of a request whose text begins with `prefix`, when the
/// top-level object names it before the prefix ends; else `null`.
fn request_id(prefix: &[u8]) -> Value {
    top_level_id(prefix).unwrap_or(Value::Null)
}

/// The `id` member of the object `prefix` begins with, when it is a
/// number or a string and every member before it can be read whole.
fn top_level_id(prefix: &[u8]) -> Option<Value> {
    let at = skip_whitespace(prefix, 0);
    if prefix.get(at) != Some(&b'{') {
        return None;
    }
    let mut at = at + 1;
    loop {
        let (key, value) = member_name(prefix, at)?;
        if key == "id" {
            return match value_at::<Value>(prefix, value)? {
                (id @ (Value::Number(_) | Value::String(_)), _) => Some(id),
                _ => None,
            };
        }
        at = past_member(prefix, value)?;
    }
}

/// The name of the object member at `at` (whitespace before it skipped),
/// and where its value begins, past the `:`.
fn member_name(b: &[u8], at: usize) -> Option<(String, usize)> {
    let at = skip_whitespace(b, at);
    let (key, next) = value_at::<String>(b, at)?;
    let at = skip_whitespace(b, next);
    if b.get(at) != Some(&b':') {
        return None;
    }
    Some((key, skip_whitespace(b, at + 1)))
}

/// Where the next member begins: past the value at `at` and the comma
/// after it.
fn past_member(b: &[u8], at: usize) -> Option<usize> {
    let (_, next) = value_at::<serde::de::IgnoredAny>(b, at)?;
    let at = skip_whitespace(b, next);
    if b.get(at) != Some(&b',') {
        return None;
    }
    Some(at + 1)
}

/// `at`, moved past any whitespace in `b`.
fn skip_whitespace(b: &[u8], mut at: usize) -> usize {
    while b.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The JSON value that begins at `at` in `b`, and where it ends, when it
/// is whole and of type `T`.
fn value_at<T: serde::de::DeserializeOwned>(b: &[u8], at: usize) -> Option<(T, usize)> {
    let mut values = serde_json::Deserializer::from_slice(b.get(at..)?).into_iter::<T>();
    let value = values.next()?.ok()?;
    Some((value, at + values.byte_offset()))
}

/// The answer to a line of `len` bytes, longer than [`LINE_MAX`].
fn too_long(prefix: &[u8], len: usize) -> Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": request_id(prefix),
        "error": {
            "code": -32600,
            "message": format!(
                "Invalid request: the message has {len} bytes, more than the {LINE_MAX} a message may have; it was not read"
            ),
        },
    })
}

/// The SDK's transport (its input and output), the reader and the writer.
pub(super) fn gated_stdio() -> (
    (tokio::io::DuplexStream, tokio::io::DuplexStream),
    impl std::future::Future<Output = ()> + Send + 'static,
    impl std::future::Future<Output = ()> + Send + 'static,
) {
    const BUFFER: usize = 1 << 16;
    let (mut to_server, server_in) = tokio::io::duplex(BUFFER);
    let (server_out, from_server) = tokio::io::duplex(BUFFER);
    let (answers_tx, mut answers_rx) = tokio::sync::mpsc::channel::<String>(QUEUE);
    let reader = async move {
        let mut input = BufReader::new(tokio::io::stdin());
        while let Ok(Some(line)) = read_line(&mut input).await {
            let answer = match line {
                Line::TooLong(prefix, len) => too_long(&prefix, len),
                Line::Whole(line) => match judge(&line) {
                    Err(answer) => answer,
                    Ok(()) if line.trim_ascii().is_empty() => continue,
                    Ok(()) => {
                        let text = line.trim_ascii_end();
                        if to_server.write_all(text).await.is_err()
                            || to_server.write_all(b"\n").await.is_err()
                        {
                            break;
                        }
                        continue;
                    }
                },
            };
            // Waits while the queue is full: the client reads its answers
            // before more of its input is read.
            if answers_tx.send(answer.to_string()).await.is_err() {
                break;
            }
        }
        // End of input: the server sees it and stops.
        let _ = to_server.shutdown().await;
    };
    let writer = async move {
        let mut out = tokio::io::stdout();
        let mut server = BufReader::new(from_server);
        let mut line = Vec::new();
        let mut server_open = true;
        let mut answers_open = true;
        loop {
            tokio::select! {
                read = server.read_until(b'\n', &mut line), if server_open => {
                    match read {
                        Ok(0) | Err(_) => server_open = false,
                        Ok(_) => {
                            if out.write_all(&line).await.is_err() {
                                break;
                            }
                            let _ = out.flush().await;
                            line.clear();
                        }
                    }
                }
                answer = answers_rx.recv(), if answers_open => match answer {
                    Some(a) => {
                        // What else waits goes out in the same write.
                        let mut batch = a + "\n";
                        while let Ok(more) = answers_rx.try_recv() {
                            batch.push_str(&more);
                            batch.push('\n');
                        }
                        let _ = out.write_all(batch.as_bytes()).await;
                        let _ = out.flush().await;
                    }
                    None => answers_open = false,
                },
                else => break,
            }
        }
    };
    ((server_in, server_out), reader, writer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_id_before_the_parameters() {
        let id = |t: &str| request_id(t.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"#),
            7
        );
        assert_eq!(id(r#" { "id" : "a\"b" , "#), "a\"b");
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","method":"x","params":{"id":3,"a":"xxxx"#),
            Value::Null
        );
        assert_eq!(id(r#"{"params":{"x":[1,{"id":2}]},"id":9,"#), 9);
        assert_eq!(id("xxxx"), Value::Null);
    }
}
