//! Real clusters on loopback: nodes of the server under test with the module loaded, joined
//! with `CLUSTER MEET`, slots given out with `CLUSTER ADDSLOTS`, replicas attached with
//! `CLUSTER REPLICATE`; slots moved the classic way (`MIGRATE`, as `redis-cli --cluster
//! reshard` moves them) or, on Valkey 9, atomically (`CLUSTER MIGRATESLOTS`); and a client that
//! routes each command by its key's slot and follows `MOVED`, `ASK` and `TRYAGAIN`, as cluster
//! clients do.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::*;

/// Slots in a cluster.
pub const SLOTS: u16 = 16384;

/// A running cluster: its primaries first, then their replicas.
pub struct Cluster {
    pub nodes: Vec<Node>,
}

/// One node of a cluster.
pub struct Node {
    /// Its server, until it is killed.
    pub server: Option<Server>,
    pub port: u16,
    /// Its cluster node id.
    pub id: String,
}

impl Node {
    /// A connection to the node that reads a replica's keys (`READONLY`; nothing else changes
    /// on a primary).
    pub fn conn(&self) -> Conn {
        let mut c = Conn::open(self.port);
        assert_eq!(c.cmd("READONLY"), ok());
        c
    }

    /// Kills the node's server with SIGKILL, as a crash would.
    pub fn kill(&mut self) {
        self.server = None;
    }
}

impl Cluster {
    /// `primaries` primaries sharing the slots evenly, each with `replicas` replicas.
    pub fn start(primaries: usize, replicas: usize) -> Cluster {
        Cluster::start_with(primaries, replicas, &|node| node)
    }

    /// The same, each node built by `configure` from a cluster node of the server under test.
    pub fn start_with(
        primaries: usize,
        replicas: usize,
        configure: &dyn Fn(ServerBuilder) -> ServerBuilder,
    ) -> Cluster {
        let count = primaries * (1 + replicas);
        let nodes: Vec<Node> = (0..count)
            .map(|_| {
                let server = configure(Server::with(Module::RedisBf).cluster_node()).start();
                let id = server.conn().cmd("CLUSTER MYID").text();
                let port = server.port;
                Node {
                    server: Some(server),
                    port,
                    id,
                }
            })
            .collect();
        // Distinct config epochs, as `redis-cli --cluster create` gives: nodes that start
        // alike would otherwise settle their collisions first, failovers waiting on it.
        for (epoch, node) in nodes.iter().enumerate() {
            let epoch = (epoch + 1).to_string();
            assert_eq!(
                node.conn().call(&["CLUSTER", "SET-CONFIG-EPOCH", &epoch]),
                ok()
            );
        }
        let mut first = nodes[0].conn();
        for node in &nodes[1..] {
            let port = node.port.to_string();
            assert_eq!(first.call(&["CLUSTER", "MEET", "127.0.0.1", &port]), ok());
        }
        let per_primary = SLOTS as usize / primaries;
        for (i, node) in nodes[..primaries].iter().enumerate() {
            let end = if i + 1 == primaries {
                SLOTS as usize
            } else {
                (i + 1) * per_primary
            };
            let slots: Vec<String> = (i * per_primary..end).map(|s| s.to_string()).collect();
            let mut line = vec!["CLUSTER", "ADDSLOTS"];
            line.extend(slots.iter().map(String::as_str));
            assert_eq!(node.conn().call(&line), ok());
        }
        let cluster = Cluster { nodes };
        cluster.wait_until("every node knows every other", |c| {
            c.cmd("CLUSTER NODES").text().lines().count() == count
        });
        for (i, node) in cluster.nodes[primaries..].iter().enumerate() {
            let primary = &cluster.nodes[i % primaries].id;
            assert_eq!(node.conn().call(&["CLUSTER", "REPLICATE", primary]), ok());
        }
        cluster.wait_stable();
        cluster
    }

    /// Waits until every live node has the cluster up and the same view of it (roles,
    /// failures, slots), and every replica has caught up with its primary.
    pub fn wait_stable(&self) {
        self.wait_until("the cluster is up", |c| {
            c.cmd("CLUSTER INFO")
                .text()
                .lines()
                .any(|line| line.trim() == "cluster_state:ok")
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let views: Vec<String> = self
                .live()
                .map(|node| cluster_view(&mut node.conn()))
                .collect();
            let collide = views
                .iter()
                .any(|view| view.starts_with("config epochs collide"));
            if !collide && views.windows(2).all(|pair| pair[0] == pair[1]) {
                break;
            }
            assert!(Instant::now() < deadline, "the nodes disagree: {views:#?}");
            std::thread::sleep(Duration::from_millis(50));
        }
        for node in self.live() {
            let mut c = node.conn();
            if c.cmd("ROLE").array()[0].text() == "slave" {
                let primary = self.primary_of(&node.id);
                wait_in_sync(&mut self.nodes[primary].conn(), &mut c);
            }
        }
    }

    /// Waits until `ready` holds on every live node.
    fn wait_until(&self, what: &str, ready: impl Fn(&mut Conn) -> bool) {
        for node in self.live() {
            let mut c = node.conn();
            wait_for(what, || ready(&mut c));
        }
    }

    /// The nodes whose servers still run.
    pub fn live(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(|node| node.server.is_some())
    }

    /// The index of the node with id `id`.
    pub fn index_of(&self, id: &str) -> usize {
        self.nodes.iter().position(|node| node.id == id).unwrap()
    }

    /// The index of the primary that node `id` replicates (itself for a primary).
    pub fn primary_of(&self, id: &str) -> usize {
        let node = &self.nodes[self.index_of(id)];
        let role = node.conn().cmd("ROLE").array();
        if role[0].text() == "master" {
            return self.index_of(id);
        }
        let port: u16 = role[2].int() as u16;
        self.nodes.iter().position(|n| n.port == port).unwrap()
    }

    /// The index of the node serving `slot`, as a live node sees it.
    pub fn owner(&self, slot: u16) -> usize {
        let mut c = self.live().next().unwrap().conn();
        for range in c.cmd("CLUSTER SLOTS").array() {
            let range = range.array();
            if (range[0].int()..=range[1].int()).contains(&i64::from(slot)) {
                let port = range[2].array()[1].int() as u16;
                return self.nodes.iter().position(|n| n.port == port).unwrap();
            }
        }
        panic!("nobody serves slot {slot}")
    }

    /// Moves `slot` from its owner to primary `to` the classic way, as `redis-cli --cluster
    /// reshard` does: IMPORTING on the target, MIGRATING on the source, the keys by `MIGRATE`
    /// in batches, then the slot's new owner told to every primary. `between_batches` runs
    /// after each batch (writes while the slot moves).
    pub fn migrate_slot(&self, slot: u16, to: usize, mut between_batches: impl FnMut()) {
        let from = self.owner(slot);
        if from == to {
            return;
        }
        let (source, target) = (&self.nodes[from], &self.nodes[to]);
        let slot_text = slot.to_string();
        let (mut s, mut t) = (source.conn(), target.conn());
        let set = |c: &mut Conn, state: &str, id: &str| {
            assert_eq!(c.call(&["CLUSTER", "SETSLOT", &slot_text, state, id]), ok());
        };
        set(&mut t, "IMPORTING", &source.id);
        set(&mut s, "MIGRATING", &target.id);
        let port = target.port.to_string();
        loop {
            let keys = s
                .call(&["CLUSTER", "GETKEYSINSLOT", &slot_text, "10"])
                .array();
            if keys.is_empty() {
                break;
            }
            let keys: Vec<String> = keys.iter().map(Value::text).collect();
            let mut line = vec!["MIGRATE", "127.0.0.1", &port, "", "0", "10000", "KEYS"];
            line.extend(keys.iter().map(String::as_str));
            let reply = s.call(&line);
            assert!(!reply.is_error(), "MIGRATE {keys:?}: {reply:?}");
            between_batches();
        }
        for node in self.live() {
            if node.conn().cmd("ROLE").array()[0].text() == "master" {
                set(&mut node.conn(), "NODE", &target.id);
            }
        }
        self.wait_stable();
    }

    /// Moves `slot` to primary `to` by Valkey's atomic slot migration (`CLUSTER
    /// MIGRATESLOTS`), and waits for it to succeed, running `meanwhile` between its looks
    /// (writes while the slot moves).
    pub fn migrate_slot_atomically(&self, slot: u16, to: usize, mut meanwhile: impl FnMut()) {
        let from = self.owner(slot);
        let mut s = self.nodes[from].conn();
        let slot_text = slot.to_string();
        let target = &self.nodes[to].id;
        let line = [
            "CLUSTER",
            "MIGRATESLOTS",
            "SLOTSRANGE",
            &slot_text,
            &slot_text,
            "NODE",
            target,
        ];
        assert_eq!(s.call(&line), ok());
        wait_for("the atomic slot migration to end", || {
            meanwhile();
            let migrations = s.cmd("CLUSTER GETSLOTMIGRATIONS").array();
            let states: Vec<String> = migrations.iter().map(|m| field(m, "state")).collect();
            assert!(
                states
                    .iter()
                    .all(|state| state != "failed" && state != "cancelled"),
                "{migrations:?}"
            );
            !states.is_empty() && states.iter().all(|state| state == "success")
        });
        self.wait_stable();
    }
}

/// A field of a reply that lists names and values (RESP2) or maps them (RESP3).
pub fn field(reply: &Value, name: &str) -> String {
    match reply {
        Value::Map(pairs) => pairs
            .iter()
            .find(|(k, _)| k.text() == name)
            .map(|(_, v)| v.text())
            .unwrap_or_default(),
        _ => {
            let items = reply.array();
            items
                .chunks(2)
                .find(|pair| pair[0].text() == name)
                .map(|pair| pair[1].text())
                .unwrap_or_default()
        }
    }
}

/// A node's view of the cluster, for comparing views: the current epoch, then each node's id,
/// role (and failure, once agreed), primary, config epoch and slots, sorted. Once views agree
/// the primaries' config epochs must differ too: a slot moved twice in quick succession can
/// leave two importers with one epoch (`CLUSTER SETSLOT … NODE` bumps it without consensus),
/// and the slot's owner is settled only when the collision is.
fn cluster_view(c: &mut Conn) -> String {
    let mut nodes: Vec<String> = c
        .cmd("CLUSTER NODES")
        .text()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let flags: Vec<&str> = fields[2]
                .split(',')
                .filter(|flag| ["master", "slave", "fail"].contains(flag))
                .collect();
            let slots = fields.get(8..).unwrap_or_default().join(" ");
            let epoch = fields[6];
            format!(
                "{} {} {} {epoch} {slots}",
                fields[0],
                flags.join(","),
                fields[3]
            )
        })
        .collect();
    nodes.sort();
    let primaries: Vec<&str> = nodes
        .iter()
        .filter(|node| {
            node.split(' ')
                .nth(1)
                .is_some_and(|flags| flags.contains("master"))
        })
        .filter(|node| {
            !node
                .split(' ')
                .nth(1)
                .is_some_and(|flags| flags.contains("fail"))
        })
        .filter_map(|node| node.split(' ').nth(3))
        .collect();
    let mut epochs = primaries.clone();
    epochs.sort();
    epochs.dedup();
    if epochs.len() != primaries.len() {
        return format!("config epochs collide: {primaries:?}");
    }
    let info = c.cmd("CLUSTER INFO").text();
    let current = info
        .lines()
        .find(|line| line.starts_with("cluster_current_epoch:"))
        .unwrap_or_default()
        .trim()
        .to_string();
    format!("{current}\n{}", nodes.join("\n"))
}

/// The slot of `key`: CRC-16 (XMODEM) of its hash tag — what is between the first `{` and
/// the next `}`, when not empty — or of the whole key, modulo 16384.
pub fn key_slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|&b| b == b'{').and_then(|open| {
        let rest = &key[open + 1..];
        let close = rest.iter().position(|&b| b == b'}')?;
        (close > 0).then(|| &rest[..close])
    });
    let mut crc: u16 = 0;
    for &byte in tagged.unwrap_or(key) {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc % SLOTS
}

/// A client of a cluster: sends each command to the node serving its key (argument 1), learns
/// from `MOVED`, asks the importing node after `ASK`, and waits out `TRYAGAIN`.
pub struct ClusterClient {
    conns: HashMap<u16, Conn>,
    /// The port serving each slot, as last learnt.
    slots: Vec<u16>,
}

impl ClusterClient {
    pub fn new(cluster: &Cluster) -> ClusterClient {
        let mut client = ClusterClient {
            conns: HashMap::new(),
            slots: vec![0; usize::from(SLOTS)],
        };
        client.learn(cluster);
        client
    }

    /// Learns the cluster anew after a node left it, as clients do when a connection fails:
    /// connections only to live nodes, and who serves each slot.
    pub fn refresh(&mut self, cluster: &Cluster) {
        let live: Vec<u16> = cluster.live().map(|node| node.port).collect();
        self.conns.retain(|port, _| live.contains(port));
        self.learn(cluster);
    }

    /// Who serves each slot, from `CLUSTER SLOTS`.
    fn learn(&mut self, cluster: &Cluster) {
        let mut c = cluster.live().next().unwrap().conn();
        for range in c.cmd("CLUSTER SLOTS").array() {
            let range = range.array();
            let port = range[2].array()[1].int() as u16;
            for slot in range[0].int()..=range[1].int() {
                self.slots[slot as usize] = port;
            }
        }
    }

    fn conn(&mut self, port: u16) -> &mut Conn {
        self.conns.entry(port).or_insert_with(|| Conn::open(port))
    }

    /// Sends `args` where its key lives, and its reply once the cluster has run it.
    pub fn call(&mut self, args: &[&str]) -> Value {
        let args: Vec<&[u8]> = args.iter().map(|arg| arg.as_bytes()).collect();
        self.call_bytes(&args)
    }

    /// The same, for arguments of any bytes.
    pub fn call_bytes(&mut self, args: &[&[u8]]) -> Value {
        let slot = key_slot(args.get(1).copied().unwrap_or_default());
        let mut port = self.slots[usize::from(slot)];
        let mut asking = false;
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            assert!(
                Instant::now() < deadline,
                "{:?}: no node would run it",
                args.first()
            );
            let c = self.conn(port);
            if asking {
                assert_eq!(c.cmd("ASKING"), ok());
            }
            let reply = c.call_bytes(args);
            let Value::Error(text) = &reply else {
                return reply;
            };
            let words: Vec<&str> = text.split(' ').collect();
            let target = || words[2].rsplit(':').next().unwrap().parse::<u16>().unwrap();
            match words[0] {
                "MOVED" => {
                    port = target();
                    self.slots[usize::from(slot)] = port;
                    asking = false;
                }
                "ASK" => {
                    port = target();
                    asking = true;
                }
                "TRYAGAIN" => {
                    port = self.slots[usize::from(slot)];
                    asking = false;
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => return reply,
            }
        }
    }
}
