//! What the module's tests (and the benchmark example) share: a small RESP2 client and
//! `redis-server` processes on free localhost ports, stopped when dropped.
//!
//! The client is hand-written (about a hundred lines) rather than the `redis` crate, whose
//! dependency tree (url, idna, ...) would cost CI more build time than the whole suite runs;
//! following MOVED by hand is also what the cluster test wants to show.

#![allow(dead_code, reason = "each test binary uses a different part")]

pub mod ported;

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The hasher the module stores its filters with (the crate's default), named once for the
/// tests.
pub type ModuleHasher = splitbloom::Xxh3;

/// One RESP2 or RESP3 reply.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Status(String),
    Error(String),
    Int(i64),
    Bulk(Option<Vec<u8>>),
    Array(Option<Vec<Reply>>),
    /// RESP3's null (`_`).
    Null,
    /// RESP3's map (`%`), in the server's order.
    Map(Vec<(Reply, Reply)>),
    /// RESP3's double (`,`), as sent.
    Double(String),
    /// RESP3's boolean (`#`).
    Bool(bool),
}

impl Reply {
    /// The integer, or a panic naming the reply.
    pub fn int(&self) -> i64 {
        match self {
            Reply::Int(value) => *value,
            other => panic!("expected an integer, got {other:?}"),
        }
    }

    /// The bulk string's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Reply::Bulk(Some(bytes)) => bytes.clone(),
            other => panic!("expected a bulk string, got {other:?}"),
        }
    }

    /// A status or bulk reply as text.
    pub fn text(&self) -> String {
        match self {
            Reply::Status(text) => text.clone(),
            Reply::Bulk(Some(bytes)) => String::from_utf8_lossy(bytes).into_owned(),
            other => panic!("expected text, got {other:?}"),
        }
    }

    /// The array's integers.
    pub fn ints(&self) -> Vec<i64> {
        match self {
            Reply::Array(Some(items)) => items.iter().map(Reply::int).collect(),
            other => panic!("expected an array, got {other:?}"),
        }
    }

    /// The error message, or a panic when the reply is not an error.
    pub fn error(&self) -> &str {
        match self {
            Reply::Error(message) => message,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }
}

/// A connection speaking RESP2; commands may be pipelined with [`Conn::send`]/[`Conn::read`].
pub struct Conn {
    reader: BufReader<TcpStream>,
    writer: BufWriter<TcpStream>,
    pub port: u16,
}

impl Conn {
    pub fn connect(port: u16) -> std::io::Result<Conn> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        Ok(Conn {
            reader: BufReader::with_capacity(1 << 16, stream.try_clone()?),
            writer: BufWriter::with_capacity(1 << 16, stream),
            port,
        })
    }

    /// Queues one command (flushed by [`read`](Conn::read) or [`flush`](Conn::flush)).
    pub fn send<A: AsRef<[u8]>>(&mut self, args: &[A]) {
        write!(self.writer, "*{}\r\n", args.len()).unwrap();
        for arg in args {
            let arg = arg.as_ref();
            write!(self.writer, "${}\r\n", arg.len()).unwrap();
            self.writer.write_all(arg).unwrap();
            self.writer.write_all(b"\r\n").unwrap();
        }
    }

    pub fn flush(&mut self) {
        self.writer.flush().unwrap();
    }

    /// Queues commands already encoded as RESP ([`encode`]).
    pub fn send_encoded(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
    }

    /// Reads the next reply, an answer (an integer or a RESP3 boolean) or an array of them (a
    /// `MADD`'s or `MEXISTS`'s), without building it: how many answered 1 (true). Panics on
    /// anything else, an error element included. What a benchmark reads, so that the client's
    /// parsing stays far below the server's work.
    pub fn read_ones(&mut self) -> usize {
        self.flush();
        let header = read_line(&mut self.reader);
        let len: usize = match header.as_bytes() {
            [b'*', ..] => header[1..].parse().unwrap(),
            b":1" | b"#t" => return 1,
            b":0" | b"#f" => return 0,
            _ => panic!("expected answers, got {header:?}"),
        };
        let mut ones = 0;
        for _ in 0..len {
            let buffer = self.reader.fill_buf().expect("read from redis");
            let answer = match buffer {
                [b':' | b'#', value, b'\r', b'\n', ..] => Some(*value),
                _ => None,
            };
            match answer {
                Some(value) => {
                    ones += usize::from(matches!(value, b'1' | b't'));
                    self.reader.consume(4);
                }
                // A line split across reads, or not an answer: the general reader.
                None => match read_reply(&mut self.reader) {
                    Reply::Int(value) => ones += usize::from(value == 1),
                    Reply::Bool(value) => ones += usize::from(value),
                    other => panic!("expected an answer, got {other:?}"),
                },
            }
        }
        ones
    }

    /// Reads the next reply.
    pub fn read(&mut self) -> Reply {
        self.flush();
        read_reply(&mut self.reader)
    }

    /// Sends one command and reads its reply.
    pub fn cmd<A: AsRef<[u8]>>(&mut self, args: &[A]) -> Reply {
        self.send(args);
        self.read()
    }

    /// A field of `INFO section`, as text.
    pub fn info(&mut self, section: &str, field: &str) -> String {
        let text = self.cmd(&["INFO", section]).text();
        text.lines()
            .find_map(|line| line.strip_prefix(&format!("{field}:")))
            .unwrap_or_else(|| panic!("no {field} in INFO {section}"))
            .trim()
            .to_owned()
    }
}

/// A command as RESP, for [`Conn::send_encoded`].
pub fn encode<A: AsRef<[u8]>>(args: &[A]) -> Vec<u8> {
    let mut bytes = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        let arg = arg.as_ref();
        bytes.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        bytes.extend_from_slice(arg);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes
}

/// One PING on a fresh connection: the reply's first line, or the I/O error.
fn ping(port: u16) -> std::io::Result<String> {
    let mut conn = Conn::connect(port)?;
    conn.writer.write_all(b"*1\r\n$4\r\nPING\r\n")?;
    conn.writer.flush()?;
    let mut line = String::new();
    conn.reader.read_line(&mut line)?;
    Ok(line)
}

fn read_line(reader: &mut impl BufRead) -> String {
    // Bytes, not `read_line`: an error may quote a binary argument.
    let mut bytes = Vec::new();
    reader
        .read_until(b'\n', &mut bytes)
        .expect("read from redis");
    let mut line = String::from_utf8_lossy(&bytes).into_owned();
    assert!(
        line.ends_with("\r\n"),
        "connection closed or bad line {line:?}"
    );
    line.truncate(line.len() - 2);
    line
}

fn read_reply(reader: &mut impl BufRead) -> Reply {
    let line = read_line(reader);
    let (kind, rest) = line.split_at(1);
    match kind {
        "+" => Reply::Status(rest.to_owned()),
        "-" => Reply::Error(rest.to_owned()),
        ":" => Reply::Int(rest.parse().unwrap()),
        "$" => {
            let len: i64 = rest.parse().unwrap();
            if len < 0 {
                return Reply::Bulk(None);
            }
            let mut bytes = vec![0; len as usize + 2];
            reader.read_exact(&mut bytes).unwrap();
            bytes.truncate(len as usize);
            Reply::Bulk(Some(bytes))
        }
        // `~` is RESP3's set, read as an array.
        "*" | "~" => {
            let len: i64 = rest.parse().unwrap();
            if len < 0 {
                return Reply::Array(None);
            }
            Reply::Array(Some((0..len).map(|_| read_reply(reader)).collect()))
        }
        "_" => Reply::Null,
        "," => Reply::Double(rest.to_owned()),
        "#" => Reply::Bool(rest == "t"),
        "%" => {
            let len: usize = rest.parse().unwrap();
            Reply::Map(
                (0..len)
                    .map(|_| (read_reply(reader), read_reply(reader)))
                    .collect(),
            )
        }
        _ => panic!("unknown RESP reply {line:?}"),
    }
}

/// The module: `$SPLITBLOOM_REDIS_MODULE`, else the newest `libsplitbloom_redis.so` built next
/// to the running test or example (`cargo test` leaves it in `target/<profile>/deps/`, beside
/// the test binary; `cargo build` in `target/<profile>/`).
pub fn module_path() -> PathBuf {
    if let Some(path) = std::env::var_os("SPLITBLOOM_REDIS_MODULE") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap();
    let profile_dir = dir.parent().unwrap();
    [dir, profile_dir, &profile_dir.join("deps")]
        .iter()
        .map(|dir| dir.join("libsplitbloom_redis.so"))
        .filter_map(|path| Some((path.metadata().ok()?.modified().ok()?, path)))
        .max()
        .map(|(_, path)| path)
        .expect("libsplitbloom_redis.so is built (cargo test -p splitbloom-redis builds it)")
}

/// The server the tests run: `$SPLITBLOOM_REDIS_SERVER` (`scripts/test-redis.sh` runs the suite
/// once more with Valkey 8.0.1's `valkey-server`), else Debian's `redis-server`.
pub fn server_binary() -> PathBuf {
    std::env::var_os("SPLITBLOOM_REDIS_SERVER").map_or_else(|| "redis-server".into(), PathBuf::from)
}

/// The command-line client for `--cluster create`: `$SPLITBLOOM_REDIS_CLI` (`valkey-cli` with
/// Valkey), else `redis-cli`.
pub fn cli_binary() -> PathBuf {
    std::env::var_os("SPLITBLOOM_REDIS_CLI").map_or_else(|| "redis-cli".into(), PathBuf::from)
}

/// Whether the server is Valkey (its `INFO server` has `valkey_version`), for the few figures
/// that differ between the two.
pub fn is_valkey(c: &mut Conn) -> bool {
    c.cmd(&["INFO", "server"])
        .text()
        .contains("valkey_version:")
}

/// The peers' modules (RedisBloom 2.4.23, valkey-bloom): `$SPLITBLOOM_PEERS_DIR`, else
/// `../shared/peers/redis/` beside the repository, as CI provides it, made absolute; `None`
/// when absent.
pub fn peers_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("SPLITBLOOM_PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/peers/redis"));
    // Absolute: a server loads its modules from its own working directory.
    let dir = dir.canonicalize().ok()?;
    dir.join("redisbloom-2.4.23.so").is_file().then_some(dir)
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A port for a cluster node: it and its cluster-bus port (+10000) are both free.
pub fn free_cluster_port() -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let start = (std::process::id() * 97 + NEXT.fetch_add(1, Ordering::Relaxed) * 331) % 25_000;
    (0..25_000)
        .map(|offset| 20_000 + (start + offset) % 25_000)
        .map(|port| port as u16)
        .find(|&port| {
            TcpListener::bind(("127.0.0.1", port)).is_ok()
                && TcpListener::bind(("127.0.0.1", port + 10_000)).is_ok()
        })
        .expect("a free port pair")
}

/// A fresh empty directory under the system's temporary directory, removed by [`Server`].
pub fn scratch_dir(tag: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "splitbloom-redis-{}-{tag}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A `redis-server` with the module loaded; killed (and its directory removed) when dropped.
pub struct Server {
    child: Child,
    pub port: u16,
    pub dir: PathBuf,
    extra: Vec<String>,
    /// Arguments after the module's path (module arguments).
    module_args: Vec<String>,
    /// A virtual memory limit (`prlimit --as`), in bytes.
    memory_limit: Option<u64>,
    /// The module loaded: splitbloom's ([`module_path`]) unless a peer's.
    module: PathBuf,
}

impl Server {
    /// A server with no persistence, in a fresh directory.
    pub fn start(tag: &str) -> Server {
        Server::start_with(tag, &[])
    }

    /// A server with extra `redis-server` arguments (`["--appendonly", "yes"]`).
    pub fn start_with(tag: &str, extra: &[&str]) -> Server {
        Server::start_full(tag, extra, &[], None)
    }

    /// A server with extra arguments, module arguments, and an address-space limit.
    pub fn start_full(
        tag: &str,
        extra: &[&str],
        module_args: &[&str],
        memory_limit: Option<u64>,
    ) -> Server {
        let dir = scratch_dir(tag);
        let strings = |args: &[&str]| args.iter().map(|arg| arg.to_string()).collect();
        Server::spawn(
            dir,
            strings(extra),
            strings(module_args),
            memory_limit,
            module_path(),
        )
    }

    /// A server with another module (a peer's `.so`) instead of splitbloom's.
    pub fn start_module(tag: &str, module: &Path, extra: &[&str], module_args: &[&str]) -> Server {
        let strings = |args: &[&str]| args.iter().map(|arg| arg.to_string()).collect();
        Server::spawn(
            scratch_dir(tag),
            strings(extra),
            strings(module_args),
            None,
            module.to_path_buf(),
        )
    }

    fn spawn(
        dir: PathBuf,
        extra: Vec<String>,
        module_args: Vec<String>,
        memory_limit: Option<u64>,
        module: PathBuf,
    ) -> Server {
        for _attempt in 0..5 {
            // A failed attempt's `Server` removed the directory when it was dropped.
            std::fs::create_dir_all(&dir).expect("the scratch directory can be made");
            let port = if extra.iter().any(|arg| arg == "--cluster-enabled") {
                free_cluster_port()
            } else {
                free_port()
            };
            let mut command = match memory_limit {
                Some(bytes) => {
                    let mut command = Command::new("prlimit");
                    command.arg(format!("--as={bytes}")).arg(server_binary());
                    command
                }
                None => Command::new(server_binary()),
            };
            let child = command
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
                .args(["--enable-debug-command", "yes"])
                .arg("--dir")
                .arg(&dir)
                .args(["--logfile", "redis.log"])
                .arg("--loadmodule")
                .arg(&module)
                .args(&module_args)
                .args(&extra)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("redis-server is installed (scripts/test-redis.sh installs it)");
            let mut server = Server {
                child,
                port,
                dir: dir.clone(),
                extra: extra.clone(),
                module_args: module_args.clone(),
                memory_limit,
                module: module.clone(),
            };
            if server.wait_ready() {
                return server;
            }
            // The port was taken in between, or the server failed: show why, try another port.
            let _ = server.child.kill();
            let _ = server.child.wait();
            eprintln!("redis-server did not start:\n{}", server.log());
        }
        panic!("redis-server did not start in 5 attempts");
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false;
            }
            // LOADING while it reads its RDB/AOF: wait until it answers PING. A connection
            // that fails or is reset (the server still starting, or shutting down after
            // failing to start) is not ready yet, not a test failure: seen in CI as a
            // "Connection reset by peer" panic on the first PING.
            if ping(self.port).is_ok_and(|reply| reply == "+PONG\r\n") {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    pub fn conn(&self) -> Conn {
        Conn::connect(self.port).unwrap()
    }

    /// The server's log file.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Stops the server with `SHUTDOWN` (saving when persistence is on) and starts a new one on
    /// the same directory and arguments (so it reads the same RDB/AOF).
    pub fn restart(self) -> Server {
        let mut this = std::mem::ManuallyDrop::new(self);
        let mut conn = this.conn();
        conn.send(&["SHUTDOWN"]);
        conn.flush();
        let _ = this.child.wait();
        // The old value is never dropped (its process has exited), so its fields can be taken.
        let dir = std::mem::take(&mut this.dir);
        let extra = std::mem::take(&mut this.extra);
        let module_args = std::mem::take(&mut this.module_args);
        let module = std::mem::take(&mut this.module);
        Server::spawn(dir, extra, module_args, this.memory_limit, module)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        } else {
            eprintln!(
                "kept {} for inspection:\n{}",
                self.dir.display(),
                self.log()
            );
        }
    }
}

/// Waits until `check` holds, polling for up to 20 s.
pub fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
