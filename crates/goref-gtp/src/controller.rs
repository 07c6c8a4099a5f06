//! The controller side of GTP: start an engine, send it commands, read its replies, stop it.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Write};
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, Notify};
use tokio::task::JoinHandle;
use tokio::time::{timeout, timeout_at, Instant};

use crate::reply::{Event, Reply, ReplyParser, MAX_LINE};
use crate::spec::EngineSpec;

/// Where engine standard error and stray output go: a per-game log, shared by both engines.
pub type Log = Arc<Mutex<dyn Write + Send>>;

/// Writes one line to a log, prefixed; errors writing a log are ignored.
pub fn log_line(log: &Option<Log>, prefix: &str, line: &str) {
    if let Some(log) = log {
        if let Ok(mut w) = log.lock() {
            let _ = writeln!(w, "{prefix} {line}");
        }
    }
}

/// What can go wrong talking to an engine. Every variant names the engine and, where there is
/// one, the command.
#[derive(Debug)]
pub enum GtpError {
    /// The program could not be started.
    Spawn {
        /// The engine, as goref names it.
        engine: String,
        /// The command that was run.
        command_line: String,
        /// Why it failed.
        source: io::Error,
    },
    /// The TCP connection could not be made.
    Connect {
        /// The engine, as goref names it.
        engine: String,
        /// The address.
        address: String,
        /// What went wrong.
        message: String,
    },
    /// No reply within the time allowed.
    Timeout {
        /// The engine, as goref names it.
        engine: String,
        /// The command sent.
        command: String,
        /// How long goref waited.
        after: Duration,
    },
    /// The engine closed its output or exited (crash, or a closed connection).
    Closed {
        /// The engine, as goref names it.
        engine: String,
        /// The command sent.
        command: String,
        /// How the process ended, if it did.
        status: Option<String>,
        /// The last lines the program wrote on its standard error (at most
        /// [`STDERR_TAIL_LINES`] lines and [`STDERR_TAIL_BYTES`] bytes; blank lines left out):
        /// often why it stopped (`Invalid mode selection: gtpx`). Empty for a TCP engine.
        stderr: Vec<String>,
    },
    /// The engine answered `? message`.
    Failure {
        /// The engine, as goref names it.
        engine: String,
        /// The command sent.
        command: String,
        /// What went wrong.
        message: String,
    },
    /// A command goref would not send (a line break inside it).
    BadCommand {
        /// The engine, as goref names it.
        engine: String,
        /// The command sent.
        command: String,
    },
}

impl GtpError {
    /// Whether the engine can no longer be used (it is closed or silent).
    #[must_use]
    pub fn is_fatal(&self) -> bool {
        !matches!(self, GtpError::Failure { .. })
    }

    /// The last lines the engine wrote on its standard error before it closed, if it did (see
    /// [`GtpError::Closed`]); empty otherwise.
    #[must_use]
    pub fn stderr_tail(&self) -> &[String] {
        match self {
            GtpError::Closed { stderr, .. } => stderr,
            _ => &[],
        }
    }

    /// `; its standard error ended: LINE | LINE…` for an engine that closed after writing on
    /// its standard error, else nothing: what the error's text ends with, for callers that say
    /// it in their own words.
    #[must_use]
    pub fn stderr_note(&self) -> String {
        let lines = self.stderr_tail();
        if lines.is_empty() {
            String::new()
        } else {
            format!("; its standard error ended: {}", lines.join(" | "))
        }
    }
}

/// At most this many lines of an engine's standard error are kept for [`GtpError::Closed`].
pub const STDERR_TAIL_LINES: usize = 20;
/// At most this many bytes of an engine's standard error are kept for [`GtpError::Closed`].
pub const STDERR_TAIL_BYTES: usize = 4096;

/// The last lines of an engine's standard error, kept as they come by the task copying them to
/// the log, and whether that stream has ended.
#[derive(Default)]
struct StderrTail {
    state: Mutex<TailState>,
    ended: Notify,
}

#[derive(Default)]
struct TailState {
    lines: VecDeque<String>,
    bytes: usize,
    ended: bool,
}

impl StderrTail {
    fn push(&self, line: &str) {
        let line = line.trim_end();
        if line.trim().is_empty() {
            return;
        }
        // One line longer than the whole budget keeps its end.
        let mut start = line.len().saturating_sub(STDERR_TAIL_BYTES);
        while !line.is_char_boundary(start) {
            start += 1;
        }
        let line = &line[start..];
        let Ok(mut t) = self.state.lock() else { return };
        t.bytes += line.len();
        t.lines.push_back(line.to_string());
        while t.lines.len() > STDERR_TAIL_LINES || t.bytes > STDERR_TAIL_BYTES {
            match t.lines.pop_front() {
                Some(old) => t.bytes -= old.len(),
                None => break,
            }
        }
    }

    fn end(&self) {
        if let Ok(mut t) = self.state.lock() {
            t.ended = true;
        }
        self.ended.notify_waiters();
    }

    /// The lines kept, once the stream has ended or `limit` has passed.
    async fn lines(&self, limit: Duration) -> Vec<String> {
        let wait = async {
            loop {
                let notified = self.ended.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if self.state.lock().map_or(true, |t| t.ended) {
                    return;
                }
                notified.await;
            }
        };
        let _ = timeout(limit, wait).await;
        self.state
            .lock()
            .map(|t| t.lines.iter().cloned().collect())
            .unwrap_or_default()
    }
}

impl fmt::Display for GtpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GtpError::Spawn {
                engine,
                command_line,
                source,
            } => write!(f, "{engine}: cannot start '{command_line}': {source}"),
            GtpError::Connect {
                engine,
                address,
                message,
            } => write!(f, "{engine}: cannot connect to {address}: {message}"),
            GtpError::Timeout {
                engine,
                command,
                after,
            } => write!(
                f,
                "{engine}: no reply to '{command}' within {:.3}s",
                after.as_secs_f64()
            ),
            GtpError::Closed {
                engine,
                command,
                status,
                ..
            } => {
                write!(f, "{engine}: closed its output during '{command}'")?;
                if let Some(s) = status {
                    write!(f, " ({s})")?;
                }
                f.write_str(&self.stderr_note())
            }
            GtpError::Failure {
                engine,
                command,
                message,
            } => write!(f, "{engine}: '{command}' failed: {message}"),
            GtpError::BadCommand { engine, command } => {
                write!(f, "{engine}: refusing to send {command:?}")
            }
        }
    }
}

impl std::error::Error for GtpError {}

/// What an engine says about itself at start-up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineInfo {
    /// Its answer to `protocol_version`.
    pub protocol_version: String,
    /// Its answer to `name`.
    pub name: String,
    /// Its answer to `version`.
    pub version: String,
    /// Its answer to `list_commands`, one command a line.
    pub commands: Vec<String>,
}

impl EngineInfo {
    /// Whether `list_commands` named `command`.
    #[must_use]
    pub fn supports(&self, command: &str) -> bool {
        self.commands.iter().any(|c| c == command)
    }
}

enum Incoming {
    Reply(Reply),
    Closed,
}

/// A running engine and the GTP session with it.
pub struct Engine {
    label: String,
    next_id: u32,
    writer: Pin<Box<dyn AsyncWrite + Send>>,
    incoming: mpsc::UnboundedReceiver<Incoming>,
    child: Option<Child>,
    status: Option<ExitStatus>,
    closed: bool,
    /// The id of a command sent whose reply has not been read (it timed out, or its caller
    /// gave up waiting).
    awaiting: Option<u32>,
    info: EngineInfo,
    log: Option<Log>,
    /// The end of a started program's standard error.
    stderr: Option<Arc<StderrTail>>,
    tasks: Vec<JoinHandle<()>>,
}

/// How an engine stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// It exited after `quit` within the grace period.
    Quit(Option<String>),
    /// It was killed after the grace period.
    Killed,
    /// A TCP engine: the connection was closed.
    Disconnected,
}

impl Engine {
    /// Starts the engine of `spec`. `label` names it in errors and in the log.
    pub async fn start(
        spec: &EngineSpec,
        label: &str,
        log: Option<Log>,
    ) -> Result<Engine, GtpError> {
        match spec {
            EngineSpec::Process { argv, cwd, env } => {
                let mut cmd = Command::new(&argv[0]);
                cmd.args(&argv[1..])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .kill_on_drop(true);
                // Its own process group: Ctrl-C in goref's terminal does not reach the engine,
                // and a kill reaches the engine's own children.
                #[cfg(unix)]
                cmd.process_group(0);
                if let Some(dir) = cwd {
                    cmd.current_dir(dir);
                }
                cmd.envs(env.iter().map(|(k, v)| (k, v)));
                let mut child = cmd.spawn().map_err(|source| GtpError::Spawn {
                    engine: label.to_string(),
                    command_line: spec.to_string(),
                    source,
                })?;
                let stdin = child.stdin.take().expect("piped");
                let stdout = child.stdout.take().expect("piped");
                let stderr = child.stderr.take().expect("piped");
                let mut engine = Engine::over(stdout, stdin, label, log.clone());
                let prefix = format!("[{label} stderr]");
                let tail = Arc::new(StderrTail::default());
                engine
                    .tasks
                    .push(tokio::spawn(copy_lines(stderr, log, prefix, tail.clone())));
                engine.stderr = Some(tail);
                engine.child = Some(child);
                Ok(engine)
            }
            EngineSpec::Tcp { address } => {
                let stream = timeout(
                    Duration::from_secs(10),
                    tokio::net::TcpStream::connect(address),
                )
                .await
                .map_err(|_| "timed out after 10s".to_string())
                .and_then(|r| r.map_err(|e| e.to_string()))
                .map_err(|message| GtpError::Connect {
                    engine: label.to_string(),
                    address: address.clone(),
                    message,
                })?;
                let _ = stream.set_nodelay(true);
                let (r, w) = stream.into_split();
                Ok(Engine::over(r, w, label, log))
            }
        }
    }

    /// A GTP session over any byte streams (a pipe pair, a socket, an in-memory duplex).
    pub fn over(
        reader: impl AsyncRead + Unpin + Send + 'static,
        writer: impl AsyncWrite + Send + 'static,
        label: &str,
        log: Option<Log>,
    ) -> Engine {
        let (tx, rx) = mpsc::unbounded_channel();
        let prefix = format!("[{label} stdout]");
        let task = tokio::spawn(read_replies(reader, tx, log.clone(), prefix));
        Engine {
            label: label.to_string(),
            next_id: 1,
            writer: Box::pin(writer),
            incoming: rx,
            child: None,
            status: None,
            closed: false,
            awaiting: None,
            info: EngineInfo::default(),
            log,
            stderr: None,
            tasks: vec![task],
        }
    }

    /// The name used in errors.
    #[must_use]
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Renames the engine in later errors.
    pub fn set_label(&mut self, label: impl Into<String>) {
        self.label = label.into();
    }

    /// What [`check`](Engine::check) learnt.
    #[must_use]
    pub fn info(&self) -> &EngineInfo {
        &self.info
    }

    /// The process id, for a started program.
    #[must_use]
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().and_then(Child::id)
    }

    /// Sends one command and waits up to `limit` for its reply, success or failure.
    pub async fn send(&mut self, command: &str, limit: Duration) -> Result<Reply, GtpError> {
        if command.contains(['\n', '\r']) {
            return Err(GtpError::BadCommand {
                engine: self.label.clone(),
                command: command.to_string(),
            });
        }
        if self.closed {
            return Err(self.closed_error(command).await);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.awaiting = Some(id);
        let deadline = Instant::now() + limit;
        let line = format!("{id} {command}\n");
        let write = async {
            self.writer.write_all(line.as_bytes()).await?;
            self.writer.flush().await
        };
        tracing::debug!(engine = %self.label, "> {id} {command}");
        log_line(
            &self.log,
            &format!("[{} >]", self.label),
            &format!("{id} {command}"),
        );
        match timeout_at(deadline, write).await {
            Err(_) => return Err(self.timeout_error(command, limit)),
            Ok(Err(_)) => return Err(self.closed_error(command).await),
            Ok(Ok(())) => {}
        }
        loop {
            match timeout_at(deadline, self.incoming.recv()).await {
                Err(_) => return Err(self.timeout_error(command, limit)),
                Ok(None | Some(Incoming::Closed)) => return Err(self.closed_error(command).await),
                Ok(Some(Incoming::Reply(reply))) => {
                    if reply.id.is_some_and(|got| got != id) {
                        // A late reply to an earlier command that timed out.
                        log_line(
                            &self.log,
                            &format!("[{}]", self.label),
                            &format!("discarded reply with id {:?}: {}", reply.id, reply.text),
                        );
                        continue;
                    }
                    self.awaiting = None;
                    tracing::debug!(engine = %self.label, "< {:?}", reply);
                    if self.log.is_some() {
                        let status = if reply.success { '=' } else { '?' };
                        let id = reply.id.map(|i| i.to_string()).unwrap_or_default();
                        let text = reply.text.replace('\n', "\n  ");
                        log_line(
                            &self.log,
                            &format!("[{} <]", self.label),
                            &format!("{status}{id} {text}"),
                        );
                    }
                    return Ok(reply);
                }
            }
        }
    }

    /// Sends one command; a `?` reply is an error.
    pub async fn command(&mut self, command: &str, limit: Duration) -> Result<String, GtpError> {
        let reply = self.send(command, limit).await?;
        if reply.success {
            Ok(reply.text)
        } else {
            Err(GtpError::Failure {
                engine: self.label.clone(),
                command: command.to_string(),
                message: reply.text,
            })
        }
    }

    /// Asks `protocol_version`, `name`, `version` and `list_commands` (each must succeed).
    pub async fn check(&mut self, limit: Duration) -> Result<&EngineInfo, GtpError> {
        let protocol_version = self.command("protocol_version", limit).await?;
        let name = self.command("name", limit).await?;
        let version = self.command("version", limit).await?;
        let commands = self.command("list_commands", limit).await?;
        self.info = EngineInfo {
            protocol_version: protocol_version.trim().to_string(),
            name: name.trim().to_string(),
            version: version.trim().to_string(),
            commands: commands
                .lines()
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty())
                .collect(),
        };
        Ok(&self.info)
    }

    /// Whether a command was sent whose reply has not come: the engine timed out, or the game
    /// that asked ended before it answered. Such an engine is not set up for another game (its
    /// late reply would still be discarded by id, but an engine that hung may never answer).
    #[must_use]
    pub fn is_awaiting_reply(&self) -> bool {
        self.awaiting.is_some()
    }

    /// Whether the engine's output has closed (it exited or hung up).
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Sends `quit`, waits up to `grace` for the engine to exit, and kills it (and its process
    /// group) if it has not.
    pub async fn shutdown(mut self, grace: Duration) -> Stopped {
        if !self.closed {
            let _ = self.send("quit", grace).await;
        }
        let _ = self.writer.shutdown().await;
        let Some(child) = self.child.as_mut() else {
            return Stopped::Disconnected;
        };
        let group = child.id();
        let stopped = match timeout(grace, child.wait()).await {
            Ok(Ok(status)) => Stopped::Quit(Some(status.to_string())),
            Ok(Err(_)) => Stopped::Quit(None),
            Err(_) => {
                self.kill();
                if let Some(child) = self.child.as_mut() {
                    let _ = child.wait().await;
                }
                Stopped::Killed
            }
        };
        // What the engine left running in its process group (helpers, children) goes too.
        #[cfg(unix)]
        if let Some(pid) = group {
            // SAFETY: kill(2) with a negative pid signals the group goref created for the
            // engine; it fails harmlessly when the group is empty.
            unsafe {
                libc::kill(-(pid as i32), libc::SIGKILL);
            }
        }
        // Let the readers copy the last of the output into the log.
        for task in &mut self.tasks {
            let _ = timeout(Duration::from_millis(200), task).await;
        }
        stopped
    }

    /// Kills the engine and its process group at once.
    pub fn kill(&mut self) {
        if let Some(child) = self.child.as_mut() {
            if let Ok(None) = child.try_wait() {
                #[cfg(unix)]
                if let Some(pid) = child.id() {
                    // SAFETY: kill(2) with a negative pid signals the group goref created.
                    unsafe {
                        libc::kill(-(pid as i32), libc::SIGKILL);
                    }
                }
                let _ = child.start_kill();
            }
        }
    }

    fn timeout_error(&self, command: &str, after: Duration) -> GtpError {
        GtpError::Timeout {
            engine: self.label.clone(),
            command: command.to_string(),
            after,
        }
    }

    async fn closed_error(&mut self, command: &str) -> GtpError {
        self.closed = true;
        if self.status.is_none() {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Ok(status)) = timeout(Duration::from_millis(500), child.wait()).await {
                    self.status = Some(status);
                }
            }
        }
        // What it said last on its way out: the copy of its standard error ends with the
        // process (a child it left holding the pipe open is not waited for long).
        let stderr = match &self.stderr {
            Some(tail) => tail.lines(Duration::from_millis(300)).await,
            None => Vec::new(),
        };
        GtpError::Closed {
            engine: self.label.clone(),
            command: command.to_string(),
            status: self.status.map(|s| s.to_string()),
            stderr,
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.kill();
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Splits a byte stream into lines of at most [`MAX_LINE`] bytes (the rest of a longer line is
/// dropped) and hands each to `line`. Returns at end of stream or on a read error.
async fn for_each_line(mut reader: impl AsyncRead + Unpin, mut line: impl FnMut(&[u8])) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut current = Vec::new();
    loop {
        let n = match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for chunk in buf[..n].split_inclusive(|&b| b == b'\n') {
            let room = MAX_LINE.saturating_sub(current.len());
            current.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if chunk.ends_with(b"\n") {
                line(&current);
                current.clear();
            }
        }
    }
    if !current.is_empty() {
        line(&current);
    }
}

async fn read_replies(
    reader: impl AsyncRead + Unpin,
    tx: mpsc::UnboundedSender<Incoming>,
    log: Option<Log>,
    prefix: String,
) {
    let mut parser = ReplyParser::new();
    for_each_line(reader, |raw| match parser.push_line(raw) {
        Event::Reply(reply) => {
            let _ = tx.send(Incoming::Reply(reply));
        }
        Event::Stray(text) => log_line(&log, &prefix, &text),
        Event::Pending => {}
    })
    .await;
    // A reply cut off by the end of output still counts when it has started.
    if let Event::Reply(reply) = parser.push_line(b"\n") {
        let _ = tx.send(Incoming::Reply(reply));
    }
    let _ = tx.send(Incoming::Closed);
}

async fn copy_lines(
    reader: impl AsyncRead + Unpin,
    log: Option<Log>,
    prefix: String,
    tail: Arc<StderrTail>,
) {
    for_each_line(reader, |raw| {
        let line = crate::reply::clean_line(raw);
        tail.push(&line);
        log_line(&log, &prefix, &line);
    })
    .await;
    tail.end();
}
