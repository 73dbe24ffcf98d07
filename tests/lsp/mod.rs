//! A small LSP client for the tests: spawns `memlint server`, frames
//! JSON-RPC messages over its pipes (`Content-Length` headers), answers the
//! server's own requests, and keeps the notifications it sends.

use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a test waits for a message before it fails.
pub const WAIT: Duration = Duration::from_secs(60);

pub struct Client {
    pub child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Notifications received while waiting for something else.
    pub notifications: VecDeque<Value>,
    /// The requests the server sent to the client (answered with null).
    pub server_requests: Vec<Value>,
    next_id: i64,
}

/// The `file://` URI of a path.
pub fn uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_str().expect("UTF-8 path").bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

impl Client {
    /// Starts `memlint server` in `root` (the server's workspace).
    pub fn start(bin: &str, root: &Path) -> Client {
        Client::start_with(bin, root, &[])
    }

    /// Starts `memlint server ARGS…` in directory `dir`.
    pub fn start_with(bin: &str, dir: &Path, args: &[&str]) -> Client {
        let mut child = Command::new(bin)
            .arg("server")
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn memlint server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(msg) = read_message(&mut r) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            incoming: rx,
            notifications: VecDeque::new(),
            server_requests: Vec::new(),
            next_id: 0,
        }
    }

    /// Starts the server and initializes it with `capabilities`.
    pub fn initialized(bin: &str, root: &Path, capabilities: Value) -> Client {
        let mut c = Client::start(bin, root);
        let result = c.request(
            "initialize",
            json!({ "processId": null, "rootUri": uri(root), "capabilities": capabilities }),
        );
        assert!(result.get("result").is_some(), "initialize: {result}");
        c.notify("initialized", json!({}));
        c
    }

    /// Writes raw bytes to the server.
    pub fn write_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes)?;
        stdin.flush()
    }

    /// Sends one message.
    pub fn send(&mut self, msg: &Value) {
        let body = serde_json::to_vec(msg).expect("json");
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend(body);
        self.write_raw(&framed).expect("write to the server");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let msg = self
                .next()
                .unwrap_or_else(|| panic!("no response to {method}"));
            if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                return msg;
            }
        }
    }

    /// The result of a request, failing on an error response.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params);
        assert!(r.get("error").is_none(), "{method}: {r}");
        r["result"].clone()
    }

    /// The next message from the server that is not a request to the
    /// client (those are answered here); notifications are also queued.
    fn next(&mut self) -> Option<Value> {
        loop {
            let msg = match self.incoming.recv_timeout(WAIT) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => panic!("the server sent nothing for {WAIT:?}"),
                Err(RecvTimeoutError::Disconnected) => return None,
            };
            if msg.get("method").is_some() && msg.get("id").is_some() {
                let id = msg["id"].clone();
                self.send(&json!({ "jsonrpc": "2.0", "id": id, "result": null }));
                self.server_requests.push(msg);
                continue;
            }
            if msg.get("method").is_some() {
                self.notifications.push_back(msg.clone());
            }
            return Some(msg);
        }
    }

    /// Waits for the next `publishDiagnostics` of `uri` and returns its
    /// diagnostics.
    pub fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(i) = self.notifications.iter().position(|n| {
                n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri
            }) {
                let n = self.notifications.remove(i).expect("found");
                return n["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
            }
            assert!(Instant::now() < deadline, "no diagnostics for {uri}");
            self.next().expect("the server is running");
        }
    }

    /// Queues the notifications that arrived, without waiting.
    pub fn poll(&mut self) {
        while let Ok(msg) = self.incoming.try_recv() {
            if msg.get("method").is_some() && msg.get("id").is_none() {
                self.notifications.push_back(msg);
            }
        }
    }

    /// Drops the queued notifications.
    pub fn forget(&mut self) {
        self.notifications.clear();
    }

    pub fn open(&mut self, path: &Path, text: &str) -> String {
        let u = uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": u, "languageId": "markdown", "version": 1, "text": text } }),
        );
        u
    }

    /// Closes the server's standard input (the client goes away).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the server to exit; its exit code.
    pub fn wait_exit(&mut self) -> Option<i32> {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server's standard error, after it exited.
    pub fn stderr(&mut self) -> String {
        let mut s = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut s);
        }
        s
    }

    /// shutdown, exit, and the exit code.
    pub fn shutdown(&mut self) -> Option<i32> {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r["result"], Value::Null, "{r}");
        self.notify("exit", Value::Null);
        self.wait_exit()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// `text` with the LSP `TextEdit`s `edits` applied (positions in UTF-16
/// code units, as the protocol's default encoding), as an editor applies a
/// workspace edit.
pub fn applied(text: &str, edits: &Value) -> String {
    let offset = |p: &Value| -> usize {
        let line = p["line"].as_u64().expect("line") as usize;
        let character = p["character"].as_u64().expect("character") as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        for (i, c) in text[start..].char_indices() {
            if units >= character || c == '\n' {
                return start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    let mut spans: Vec<(usize, usize, String)> = edits
        .as_array()
        .expect("edits")
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().expect("newText").to_string(),
            )
        })
        .collect();
    spans.sort_by(|a, b| b.0.cmp(&a.0));
    let mut out = text.to_string();
    for (start, end, new) in spans {
        out.replace_range(start..end, &new);
    }
    out
}
