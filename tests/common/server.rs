//! Servers under test: which binary, which version and so which features, and a server with
//! the module loaded on a free loopback port, in its own directory, killed when the test ends.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{err, feature, ok, Conn, Value};

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
    /// valkey-bloom's `libvalkey_bloom.so` (`VALKEY_BLOOM_SO`), for differential tests.
    ValkeyBloom,
    /// No module.
    None,
}

impl Module {
    fn path(&self) -> Option<PathBuf> {
        match self {
            Module::RedisBf => Some(module_path()),
            Module::RedisBloom => Some(redisbloom_path()),
            Module::ValkeyBloom => valkey_bloom_path(),
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

/// valkey-bloom's module (a build of valkey-io/valkey-bloom 1.0), where `VALKEY_BLOOM_SO` names
/// one: the tests that compare against it say so and stop when it is not there.
pub fn valkey_bloom_path() -> Option<PathBuf> {
    let path: PathBuf = std::env::var_os("VALKEY_BLOOM_SO")?.into();
    path.exists().then_some(path)
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

/// Module arguments every server of this module starts with, before a test's own (which win):
/// `BF_TEST_MODULE_ARGS`, words split on spaces. The version matrix forces the scalar path
/// with it (`bf-vector-hashing no`, the Makefile's `test-matrix-ci`).
fn run_module_args() -> Vec<String> {
    std::env::var("BF_TEST_MODULE_ARGS")
        .unwrap_or_default()
        .split_whitespace()
        .map(String::from)
        .collect()
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
    /// Whether it is a cluster node (`cluster.rs`).
    cluster: bool,
}

impl Server {
    /// A server of the binary under test with our module.
    pub fn start() -> Server {
        Server::with(Module::RedisBf).start()
    }

    /// A server of the binary under test with our module, and a connection to it: how most
    /// tests begin.
    pub fn start_with_conn() -> (Server, Conn) {
        let server = Server::start();
        let conn = server.conn();
        (server, conn)
    }

    /// A server with our module and one module argument `name value`: how a test of one
    /// setting starts.
    pub fn with_setting(name: &str, value: &str) -> Server {
        Server::with(Module::RedisBf).setting(name, value).start()
    }

    /// A server with our module and the AOF on, for the tests that replay or compare it.
    pub fn with_aof() -> Server {
        Server::with(Module::RedisBf)
            .arg("--appendonly yes")
            .start()
    }

    /// A server with our module started as a replica of `primary`.
    pub fn replica_of(primary: &Server) -> Server {
        Server::with(Module::RedisBf).replica_of(primary).start()
    }

    /// A replica of `primary` with our module, a connection to it, once it has applied all the
    /// primary has sent ([`wait_in_sync`](super::wait_in_sync)).
    pub fn synced_replica_of(primary: &Server) -> (Server, Conn) {
        let replica = Server::replica_of(primary);
        let mut r = replica.conn();
        super::wait_in_sync(&mut primary.conn(), &mut r);
        (replica, r)
    }

    pub fn with(module: Module) -> ServerBuilder {
        ServerBuilder {
            binary: server_binary(),
            module_args: match module {
                Module::RedisBf => run_module_args(),
                _ => vec![],
            },
            module,
            args: vec![],
            dir: None,
            config_file: None,
            cluster: false,
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
    /// Starts as a replica of `primary` (the `--replicaof` option).
    pub fn replica_of(self, primary: &Server) -> Self {
        self.arg(&format!("--replicaof 127.0.0.1 {}", primary.port))
    }
    /// An argument passed to the module.
    pub fn module_arg(mut self, arg: &str) -> Self {
        self.module_args.push(arg.into());
        self
    }
    /// A setting given as the module's arguments `name value`.
    pub fn setting(self, name: &str, value: &str) -> Self {
        self.module_arg(name).module_arg(value)
    }
    /// Starts from a config file; the harness's own options (port, dir, log) override it.
    pub fn config_file(mut self, path: &Path) -> Self {
        self.config_file = Some(path.into());
        self
    }
    /// A cluster node: cluster mode, its bus on the port 10,000 above its own (the only place
    /// Redis 6 puts it), both drawn free; failures detected after 3 s.
    pub fn cluster_node(mut self) -> Self {
        self.cluster = true;
        self.arg("--cluster-enabled yes --cluster-config-file nodes.conf")
            .arg("--cluster-node-timeout 3000")
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
            let port = if self.cluster {
                free_port_with_bus()
            } else {
                free_port()
            };
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
                // A primary otherwise waits 5 s for more replicas before a diskless full sync
                // (the default from Redis 7.0): every replica test would sit through it.
                "--repl-diskless-sync-delay".into(),
                "0".into(),
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

    /// Kills this server with SIGKILL, as a crash or the OOM killer would (nothing is flushed
    /// that the server had not written already), and starts one exactly like it on the same
    /// directory.
    pub fn crash_and_restart(mut self) -> Server {
        let builder = self.builder.clone();
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        builder.dir(&self.dir.clone()).start()
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

/// A free port whose cluster bus port (10,000 above) is free too.
fn free_port_with_bus() -> u16 {
    loop {
        let port = free_port();
        let Some(bus) = port.checked_add(10_000) else {
            continue;
        };
        if TcpListener::bind(("127.0.0.1", bus)).is_ok() {
            return port;
        }
    }
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
