//! Test harness: a real server with the module loaded, on a free loopback port, in its own
//! directory, killed when the test ends; and a minimal RESP2/RESP3 client that keeps every
//! wire distinction (simple vs bulk strings, errors with or without a code, nulls, booleans,
//! maps) so replies can be compared byte for byte with RedisBloom's.
//!
//! Environment: `BF_TEST_SERVER` picks the server binary for the module under test
//! (default `redis-server`; set it to a `valkey-server` to run the suite there, or to a
//! launcher `scripts/fetch-servers.sh` prints, as `make test-matrix` does);
//! `REDISBLOOM_SO` points at RedisBloom's module for the differential tests
//! (`scripts/fetch-anchors.sh` fetches it; `make test` does so).

#![allow(dead_code)] // each test binary uses a different part of the harness

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A reply, with every distinction RESP makes.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Simple(String),
    Error(String),
    Int(i64),
    Bulk(Vec<u8>),
    /// RESP2 `$-1` / `*-1`.
    Nil,
    /// RESP3 `_`.
    Null,
    Bool(bool),
    Double(String),
    Array(Vec<Value>),
    Map(Vec<(Value, Value)>),
    Set(Vec<Value>),
    Push(Vec<Value>),
}

impl Value {
    pub fn int(&self) -> i64 {
        match self {
            Value::Int(n) => *n,
            other => panic!("expected an integer, got {other:?}"),
        }
    }
    pub fn bulk(&self) -> Vec<u8> {
        match self {
            Value::Bulk(b) => b.clone(),
            other => panic!("expected a bulk string, got {other:?}"),
        }
    }
    pub fn text(&self) -> String {
        match self {
            Value::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
            Value::Simple(s) | Value::Error(s) | Value::Double(s) => s.clone(),
            Value::Int(n) => n.to_string(),
            other => panic!("expected a string, got {other:?}"),
        }
    }
    pub fn array(&self) -> Vec<Value> {
        match self {
            Value::Array(items) | Value::Set(items) | Value::Push(items) => items.clone(),
            other => panic!("expected an array, got {other:?}"),
        }
    }
    pub fn is_error(&self) -> bool {
        matches!(self, Value::Error(_))
    }
    /// The strings of an array or set reply, sorted.
    pub fn sorted_texts(&self) -> Vec<String> {
        let mut texts: Vec<String> = self.array().iter().map(Value::text).collect();
        texts.sort();
        texts
    }
}

/// Shorthands for expected replies.
pub fn ok() -> Value {
    Value::Simple("OK".into())
}
pub fn err(text: &str) -> Value {
    Value::Error(text.into())
}
pub fn int(n: i64) -> Value {
    Value::Int(n)
}
pub fn ints(ns: &[i64]) -> Value {
    Value::Array(ns.iter().map(|&n| Value::Int(n)).collect())
}
/// A module's boolean as a RESP3 client gets it: a boolean from Redis 7.0; before, modules
/// have no boolean reply and send the integer 1 or 0 (RedisBloom too).
pub fn resp3_bool(b: bool) -> Value {
    if feature::module_resp3() {
        Value::Bool(b)
    } else {
        Value::Int(i64::from(b))
    }
}
/// An array of a module's booleans as a RESP3 client gets it (`resp3_bool`).
pub fn bools(bs: &[bool]) -> Value {
    Value::Array(bs.iter().map(|&b| resp3_bool(b)).collect())
}
/// A module's map as a RESP3 client gets it: a map from Redis 7.0; before, modules have no
/// map reply and send RESP2's flat array of keys and values (RedisBloom too).
pub fn resp3_map(pairs: Vec<(Value, Value)>) -> Value {
    if feature::module_resp3() {
        Value::Map(pairs)
    } else {
        Value::Array(pairs.into_iter().flat_map(|(k, v)| [k, v]).collect())
    }
}
pub fn simple(s: &str) -> Value {
    Value::Simple(s.into())
}
pub fn bulk(s: &[u8]) -> Value {
    Value::Bulk(s.to_vec())
}

/// A client connection.
pub struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    pub fn open(port: u16) -> Conn {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let writer = stream.try_clone().unwrap();
        Conn {
            reader: BufReader::new(stream),
            writer,
        }
    }

    /// Sends a command of byte-string arguments and reads the reply.
    pub fn call_bytes(&mut self, args: &[&[u8]]) -> Value {
        self.send(args);
        self.read()
    }

    /// Sends a command of text arguments and reads the reply.
    pub fn call(&mut self, args: &[&str]) -> Value {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        self.call_bytes(&args)
    }

    /// Splits `line` on spaces: `c.cmd("BF.ADD k item")`.
    pub fn cmd(&mut self, line: &str) -> Value {
        let args: Vec<&str> = line.split(' ').filter(|a| !a.is_empty()).collect();
        self.call(&args)
    }

    pub fn send(&mut self, args: &[&[u8]]) {
        let mut out = format!("*{}\r\n", args.len()).into_bytes();
        for arg in args {
            out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
            out.extend_from_slice(arg);
            out.extend_from_slice(b"\r\n");
        }
        self.writer.write_all(&out).expect("send");
    }

    /// Switches to RESP3.
    pub fn resp3(mut self) -> Conn {
        let hello = self.cmd("HELLO 3");
        assert!(matches!(hello, Value::Map(_)), "HELLO 3 failed: {hello:?}");
        self
    }

    pub fn read(&mut self) -> Value {
        let mut line = Vec::new();
        self.reader.read_until(b'\n', &mut line).expect("read");
        assert!(
            line.ends_with(b"\r\n"),
            "connection closed or bad line: {line:?}"
        );
        let (kind, rest) = (
            line[0],
            String::from_utf8_lossy(&line[1..line.len() - 2]).into_owned(),
        );
        let count = || rest.parse::<i64>().unwrap();
        match kind {
            b'+' => Value::Simple(rest),
            b'-' => Value::Error(rest),
            b':' => Value::Int(count()),
            b',' => Value::Double(rest),
            b'#' => Value::Bool(rest == "t"),
            b'_' => Value::Null,
            b'$' | b'=' if count() < 0 => Value::Nil,
            b'$' | b'=' => {
                let mut data = vec![0; count() as usize + 2];
                self.reader.read_exact(&mut data).expect("read bulk");
                data.truncate(data.len() - 2);
                Value::Bulk(data)
            }
            b'*' if count() < 0 => Value::Nil,
            b'*' => Value::Array((0..count()).map(|_| self.read()).collect()),
            b'~' => Value::Set((0..count()).map(|_| self.read()).collect()),
            b'>' => Value::Push((0..count()).map(|_| self.read()).collect()),
            b'%' => Value::Map((0..count()).map(|_| (self.read(), self.read())).collect()),
            other => panic!("unknown reply type {:?}", other as char),
        }
    }
}

/// A running server.
pub struct Server {
    pub port: u16,
    pub dir: PathBuf,
    child: Child,
    /// How it was started, for `restart`.
    builder: ServerBuilder,
}

/// Which module a server loads.
#[derive(Clone)]
pub enum Module {
    /// This crate's module.
    RedisBf,
    /// RedisBloom's `redisbloom.so`, for differential tests.
    RedisBloom,
    /// No module.
    None,
}

impl Module {
    fn path(&self) -> Option<PathBuf> {
        match self {
            Module::RedisBf => Some(module_path()),
            Module::RedisBloom => Some(redisbloom_path()),
            Module::None => None,
        }
    }
}

/// This crate's module, built by cargo next to the test binaries.
pub fn module_path() -> PathBuf {
    if let Ok(path) = std::env::var("REDIS_BF_MODULE") {
        return path.into();
    }
    // target/<profile>/deps/<test binary> → target/<profile>/libredis_bf.so
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("libredis_bf.so");
    assert!(
        path.exists(),
        "{} is missing: build the module first (make test)",
        path.display()
    );
    path
}

/// RedisBloom's module, fetched by scripts/fetch-anchors.sh.
pub fn redisbloom_path() -> PathBuf {
    let path: PathBuf = std::env::var("REDISBLOOM_SO")
        .expect("REDISBLOOM_SO is not set: run the tests with `make test` (scripts/fetch-anchors.sh fetches RedisBloom)")
        .into();
    assert!(
        path.exists(),
        "REDISBLOOM_SO={} does not exist",
        path.display()
    );
    path
}

/// The server binary the module is tested on.
pub fn server_binary() -> String {
    std::env::var("BF_TEST_SERVER").unwrap_or_else(|_| "redis-server".into())
}

/// The version `binary --version` reports (`v=7.2.4`: Valkey reports its own), once per
/// binary; `None` if it reports none.
pub fn version_of(binary: &str) -> Option<(u32, u32, u32)> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Versions = Mutex<HashMap<String, Option<(u32, u32, u32)>>>;
    static VERSIONS: OnceLock<Versions> = OnceLock::new();
    let versions = VERSIONS.get_or_init(Default::default);
    if let Some(known) = versions.lock().unwrap().get(binary) {
        return *known;
    }
    let output = Command::new(binary).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let version = text
        .split_whitespace()
        .find_map(|word| word.strip_prefix("v="))
        .and_then(|v| {
            let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
            Some((parts.next()??, parts.next()??, parts.next()??))
        });
    versions.lock().unwrap().insert(binary.into(), version);
    version
}

/// The version of the server under test (`BF_TEST_SERVER`).
pub fn server_version() -> Option<(u32, u32, u32)> {
    version_of(&server_binary())
}

/// Whether the server under test is Valkey (its `--version` says so).
pub fn server_is_valkey() -> bool {
    Command::new(server_binary())
        .arg("--version")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("Valkey"))
}

/// Whether the server under test is at least `version` (Valkey counts by its own numbers,
/// from 7.2: it has all of Redis 7.2's module API). An unknown version counts as new.
pub fn server_at_least(version: (u32, u32, u32)) -> bool {
    server_version().is_none_or(|v| v >= version)
}

/// The server features some tests depend on, each from the Redis version that added it. On
/// older servers the tests check the documented reduction instead (README, "Tested servers"),
/// which is RedisBloom's behaviour on those servers too.
pub mod feature {
    use super::server_at_least;

    /// RESP3 replies from modules (booleans, maps): Redis ≥ 7.0. Before, RESP3 clients get
    /// integers and flat arrays.
    pub fn module_resp3() -> bool {
        server_at_least((7, 0, 0))
    }
    /// Module configs (CONFIG SET/GET, config-file directives): Redis ≥ 7.0. Before, module
    /// arguments only.
    pub fn module_configs() -> bool {
        server_at_least((7, 0, 0))
    }
    /// COMMAND DOCS, and command info (arity, key specs) set by modules: Redis ≥ 7.0.
    pub fn command_docs() -> bool {
        server_at_least((7, 0, 0))
    }
    /// Multi-part AOF (`appendonlydir/`): Redis ≥ 7.0. Before, one `appendonly.aof`.
    pub fn multipart_aof() -> bool {
        server_at_least((7, 0, 0))
    }
    /// Wrong-arity errors naming the command in lower case: Redis ≥ 7.0. Before, the server
    /// echoes the name as the client typed it.
    pub fn lowercase_arity_errors() -> bool {
        server_at_least((7, 0, 0))
    }
    /// `COPY`, and module keyspace events (`notify-keyspace-events` class `d`): Redis ≥ 6.2.
    pub fn copy_and_module_events() -> bool {
        server_at_least((6, 2, 0))
    }
    /// `ACL CAT <category>` lists the module commands of a category: all servers with module
    /// categories but Redis 7.4 and Valkey 8.0, which list none under any category (a listing
    /// bug of those servers: the grants work there too).
    pub fn acl_cat_lists_module_commands() -> bool {
        match super::server_version() {
            Some((7, 4, _)) => super::server_is_valkey(),
            Some((8, 0, _)) => !super::server_is_valkey(),
            _ => true,
        }
    }
    /// A RESTORE whose payload the module refuses answers `ERR Bad data format`: Redis ≥ 6.2.
    /// Redis 6.0 exits instead ("The RDB file contains module data … not able to load"),
    /// whatever the module.
    pub fn survives_refused_restore() -> bool {
        server_at_least((6, 2, 0))
    }
}

/// The server's wrong-arity error for a command typed as `line`'s first word.
pub fn arity_error(line: &str) -> Value {
    let typed = line.split(' ').next().unwrap_or_default();
    let name = if feature::lowercase_arity_errors() {
        typed.to_lowercase()
    } else {
        typed.to_string()
    };
    err(&format!(
        "ERR wrong number of arguments for '{name}' command"
    ))
}

/// Builds a server: `Server::with(Module::RedisBf).arg("--appendonly yes").start()`.
#[derive(Clone)]
pub struct ServerBuilder {
    binary: String,
    module: Module,
    module_args: Vec<String>,
    args: Vec<String>,
    dir: Option<PathBuf>,
    config_file: Option<PathBuf>,
}

impl Server {
    /// A server of the binary under test with our module.
    pub fn start() -> Server {
        Server::with(Module::RedisBf).start()
    }

    pub fn with(module: Module) -> ServerBuilder {
        ServerBuilder {
            binary: server_binary(),
            module,
            module_args: vec![],
            args: vec![],
            dir: None,
            config_file: None,
        }
    }

    pub fn conn(&self) -> Conn {
        Conn::open(self.port)
    }

    /// A server raising every keyspace event (`KEA`), or None where module types' events
    /// cannot be had: Redis 6.0 has no class for them — the module raises them, the server
    /// drops them (README, "Tested servers") — and refuses the class, as checked here.
    pub fn with_keyspace_events() -> Option<Server> {
        let server = Server::start();
        let mut c = server.conn();
        if !feature::copy_and_module_events() {
            assert!(c.cmd("CONFIG SET notify-keyspace-events KEd").is_error());
            return None;
        }
        assert_eq!(c.cmd("CONFIG SET notify-keyspace-events KEA"), ok());
        Some(server)
    }

    /// Shuts the server down cleanly (see `restart`) and returns its directory.
    pub fn shutdown(mut self) -> PathBuf {
        self.conn().send(&[b"SHUTDOWN", b"NOSAVE"]);
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.child.try_wait().unwrap().is_none() {
            assert!(
                Instant::now() < deadline,
                "server did not shut down:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        self.dir.clone()
    }

    /// The server log, for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ServerBuilder {
    /// Uses `binary` instead of the one under test (differential tests pin redis-server).
    pub fn binary(mut self, binary: &str) -> Self {
        self.binary = binary.into();
        self
    }
    /// A server option, e.g. `.arg("--appendonly yes")` (split on spaces).
    pub fn arg(mut self, option: &str) -> Self {
        self.args.extend(option.split(' ').map(String::from));
        self
    }
    /// An argument passed to the module.
    pub fn module_arg(mut self, arg: &str) -> Self {
        self.module_args.push(arg.into());
        self
    }
    /// Starts from a config file; the harness's own options (port, dir, log) override it.
    pub fn config_file(mut self, path: &Path) -> Self {
        self.config_file = Some(path.into());
        self
    }
    /// Reuses a directory (restart on the same RDB/AOF files).
    pub fn dir(mut self, dir: &Path) -> Self {
        self.dir = Some(dir.into());
        self
    }

    pub fn start(self) -> Server {
        self.try_start()
            .unwrap_or_else(|log| panic!("server did not start:\n{log}"))
    }

    /// Starts the server, or returns its log when it exits at once (a refused module load).
    pub fn try_start(self) -> Result<Server, String> {
        let dir = self.dir.clone().unwrap_or_else(fresh_dir);
        let builder = ServerBuilder {
            dir: Some(dir.clone()),
            ..self.clone()
        };
        std::fs::create_dir_all(&dir).unwrap();
        for _attempt in 0..5 {
            let port = free_port();
            // Each attempt's log alone tells why that attempt failed.
            let _ = std::fs::remove_file(dir.join("server.log"));
            let mut args: Vec<String> = self
                .config_file
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            args.extend([
                "--port".into(),
                port.to_string(),
                "--bind".into(),
                "127.0.0.1".into(),
                "--dir".into(),
                dir.display().to_string(),
                "--logfile".into(),
                "server.log".into(),
                "--save".into(),
                "".into(),
            ]);
            // Servers before Redis 7.0 allow DEBUG and MODULE always and know no such options.
            if version_of(&self.binary).is_none_or(|v| v >= (7, 0, 0)) {
                args.extend(
                    [
                        "--enable-debug-command",
                        "local",
                        "--enable-module-command",
                        "local",
                    ]
                    .map(String::from),
                );
            }
            if let Some(path) = self.module.path() {
                args.push("--loadmodule".into());
                args.push(path.display().to_string());
                args.extend(self.module_args.iter().cloned());
            }
            args.extend(self.args.iter().cloned());
            let mut child = Command::new(&self.binary)
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.binary));
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                if child.try_wait().unwrap().is_some() {
                    let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
                    if log.contains("Address already in use") {
                        break; // another test took the port first: try another
                    }
                    return Err(log);
                }
                match probe(port) {
                    Ok(Some(pid)) if pid == child.id() => {
                        return Ok(Server {
                            port,
                            dir,
                            child,
                            builder,
                        })
                    }
                    // Another test's server took this free port first.
                    Ok(Some(_)) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        break;
                    }
                    Ok(None) | Err(_) => {}
                }
                assert!(
                    Instant::now() < deadline,
                    "server on port {port} did not answer"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        panic!("no free port after several attempts")
    }
}

impl Server {
    /// Shuts this server down as an operator would (`SHUTDOWN NOSAVE` still flushes and
    /// fsyncs the AOF; killing it could lose AOF writes the server postponed) and starts one
    /// exactly like it on the same directory, reading its RDB/AOF.
    pub fn restart(self) -> Server {
        let builder = self.builder.clone();
        let dir = self.shutdown();
        builder.dir(&dir).start()
    }
}

/// The process id of the server answering on `port` once it has finished loading; an I/O
/// error while it starts (refused, reset) just means "not yet".
fn probe(port: u16) -> std::io::Result<Option<u32>> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.write_all(b"*1\r\n$4\r\nINFO\r\n")?;
    let mut reader = BufReader::new(stream);
    let mut header = String::new();
    reader.read_line(&mut header)?;
    let Some(len) = header
        .strip_prefix('$')
        .and_then(|n| n.trim().parse::<usize>().ok())
    else {
        return Ok(None);
    };
    let mut body = vec![0; len + 2];
    reader.read_exact(&mut body)?;
    let info = String::from_utf8_lossy(&body);
    let field = |name: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
    };
    if field("loading:") != Some("0") {
        return Ok(None);
    }
    Ok(field("process_id:").and_then(|pid| pid.parse().ok()))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn fresh_dir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let base = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("test-servers");
    let dir = base.join(format!(
        "{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Polls `f` until it returns true (replication, background rewrites).
pub fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until `replica` is linked to `master` and has applied all it has sent.
pub fn wait_in_sync(master: &mut Conn, replica: &mut Conn) {
    wait_for("the replica link", || {
        info_field(replica, "replication", "master_link_status") == "up"
    });
    wait_for("the replica to catch up", || {
        let offset = info_field(master, "replication", "master_repl_offset");
        info_field(replica, "replication", "slave_repl_offset") == offset
    });
}

/// A redis-bf server and a RedisBloom server for differential tests, both Debian's
/// redis-server (RedisBloom 2.8.2 loads into 7.0), whatever server the rest of the suite runs
/// on.
pub fn start_pair() -> (Server, Server) {
    let ours = Server::with(Module::RedisBf).binary("redis-server").start();
    let theirs = Server::with(Module::RedisBloom)
        .binary("redis-server")
        .start();
    (ours, theirs)
}

/// Runs `check(from, to)` with RedisBloom (`b`) as the source, then with redis-bf (`a`), on
/// emptied servers.
pub fn both_ways(a: &mut Conn, b: &mut Conn, mut check: impl FnMut(&mut Conn, &mut Conn)) {
    for redisbloom_first in [true, false] {
        let (from, to) = if redisbloom_first {
            (&mut *b, &mut *a)
        } else {
            (&mut *a, &mut *b)
        };
        from.cmd("FLUSHALL");
        to.cmd("FLUSHALL");
        check(from, to);
    }
}

/// The filters a differential test builds and what it compares of them, for one family.
pub struct Fixture {
    /// Builds the same filters on any server and names their keys.
    pub build: fn(&mut Conn) -> Vec<&'static str>,
    /// What a filter answers (its INFO and lookups), the same on both modules.
    pub answers: fn(&mut Conn, &str) -> Vec<Value>,
}

impl Fixture {
    /// Each filter, moved by DUMP and RESTORE from RedisBloom to redis-bf and back, answers
    /// the same, dumps the same bytes and reports the same size.
    pub fn moves_both_ways_by_dump_and_restore(&self) {
        let (ours, theirs) = start_pair();
        let (mut a, mut b) = (ours.conn(), theirs.conn());
        both_ways(&mut a, &mut b, |from, to| {
            for key in (self.build)(from) {
                let payload = from.call(&["DUMP", key]).bulk();
                assert_eq!(
                    to.call_bytes(&[b"RESTORE", key.as_bytes(), b"0", &payload]),
                    ok()
                );
                assert_eq!((self.answers)(to, key), (self.answers)(from, key), "{key}");
                assert_eq!(
                    to.call(&["DUMP", key]).bulk(),
                    payload,
                    "{key}: the same RDB bytes"
                );
                assert_eq!(
                    to.call(&["MEMORY", "USAGE", key]),
                    from.call(&["MEMORY", "USAGE", key]),
                    "{key}"
                );
            }
        });
    }

    /// Starts a server of `writer`, builds the filters, persists them as `how` ("rdb", or
    /// "aof" without an RDB preamble, so the writer's AOF rewrite is replayed), and starts a
    /// server of `reader` on the files: each filter answers as it did.
    pub fn files_move(&self, writer: Module, reader: Module, how: &str) {
        let persisted = |builder: ServerBuilder| match how {
            "aof" => builder.arg("--appendonly yes --aof-use-rdb-preamble no"),
            _ => builder,
        };
        let source = persisted(Server::with(writer).binary("redis-server")).start();
        let mut s = source.conn();
        let keys = (self.build)(&mut s);
        let expected: Vec<Vec<Value>> = keys.iter().map(|k| (self.answers)(&mut s, k)).collect();
        if how == "aof" {
            rewrite_aof(&mut s);
        } else {
            assert_eq!(s.cmd("SAVE"), ok());
        }
        drop(s);
        let dir = source.shutdown();
        let target = persisted(Server::with(reader).binary("redis-server").dir(&dir)).start();
        let mut t = target.conn();
        assert_eq!(t.cmd("DBSIZE"), int(keys.len() as i64), "{}", target.log());
        for (key, expected) in keys.iter().zip(expected) {
            assert_eq!((self.answers)(&mut t, key), expected, "{key} by {how}");
        }
    }
}

/// Whether our reply is RedisBloom's, or differs only by one of the known `differences`
/// between error texts: (ours, RedisBloom 2.8.2's).
pub fn same_or_expected(ours: &Value, theirs: &Value, differences: &[(&str, &str)]) -> bool {
    ours == theirs
        || matches!((ours, theirs), (Value::Error(a), Value::Error(b))
            if differences.iter().any(|(x, y)| a == x && b == y))
}

/// Rewrites the AOF and waits until the rewrite, and any one it scheduled, is done.
pub fn rewrite_aof(c: &mut Conn) {
    assert!(!c.cmd("BGREWRITEAOF").is_error());
    wait_for("the AOF rewrite", || {
        info_field(c, "persistence", "aof_rewrite_in_progress") == "0"
            && info_field(c, "persistence", "aof_rewrite_scheduled") == "0"
    });
}

/// The value of `field` in `INFO <section>`.
pub fn info_field(conn: &mut Conn, section: &str, field: &str) -> String {
    let info = conn.call(&["INFO", section]).text();
    info.lines()
        .find_map(|l| {
            l.strip_prefix(&format!("{field}:"))
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_default()
}

/// The full name of one of our configs on this server (`bf.bf-error-rate` where the server
/// prefixes module configs, `bf-error-rate` where it does not).
pub fn config_name(conn: &mut Conn, name: &str) -> String {
    let reply = conn.call(&["CONFIG", "GET", &format!("*{name}")]);
    let found = match &reply {
        Value::Map(pairs) => pairs.first().map(|(k, _)| k.text()),
        Value::Array(items) => items.first().map(Value::text),
        _ => None,
    };
    found.unwrap_or_else(|| panic!("config {name} not found: {reply:?}"))
}

/// A deterministic pseudo-random generator (xorshift), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Every (iterator, chunk) pair BF.SCANDUMP gives for `key`; empty for a missing key.
pub fn scandump(c: &mut Conn, key: &str) -> Vec<(i64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut iter = 0i64;
    loop {
        let reply = c.call(&["BF.SCANDUMP", key, &iter.to_string()]);
        if reply.is_error() {
            return out;
        }
        let parts = reply.array();
        let next = parts[0].int();
        if next == 0 {
            return out;
        }
        out.push((next, parts[1].bulk()));
        iter = next;
    }
}

/// Replays SCANDUMP pairs with BF.LOADCHUNK, as a client restoring a filter does.
pub fn loadchunks(c: &mut Conn, key: &str, chunks: &[(i64, Vec<u8>)]) {
    for (iter, data) in chunks {
        let reply = c.call_bytes(&[
            b"BF.LOADCHUNK",
            key.as_bytes(),
            iter.to_string().as_bytes(),
            data,
        ]);
        assert_eq!(reply, ok());
    }
}

/// Redis's CRC-64 (Jones polynomial, reflected), which seals DUMP payloads.
pub fn crc64(data: &[u8]) -> u64 {
    const POLY: u64 = 0x95ac_9329_ac4b_c9b5;
    let mut crc = 0u64;
    for &byte in data {
        crc ^= u64::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ POLY
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// Every (iterator, chunk) pair CF.SCANDUMP gives for `key`, up to its `[0, nil]`; empty for a
/// missing key or a filter with no items.
pub fn cf_scandump(c: &mut Conn, key: &str) -> Vec<(i64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut iter = 0i64;
    loop {
        let reply = c.call(&["CF.SCANDUMP", key, &iter.to_string()]);
        if reply.is_error() {
            return out;
        }
        let parts = reply.array();
        let next = parts[0].int();
        if next == 0 {
            assert!(matches!(parts[1], Value::Nil | Value::Null), "{parts:?}");
            return out;
        }
        out.push((next, parts[1].bulk()));
        iter = next;
    }
}

/// Replays CF.SCANDUMP pairs with CF.LOADCHUNK.
pub fn cf_loadchunks(c: &mut Conn, key: &str, chunks: &[(i64, Vec<u8>)]) {
    for (iter, data) in chunks {
        let reply = c.call_bytes(&[
            b"CF.LOADCHUNK",
            key.as_bytes(),
            iter.to_string().as_bytes(),
            data,
        ]);
        assert_eq!(reply, ok());
    }
}
