//! A three-node Redis Cluster on localhost (made with `redis-cli --cluster create`): each filter
//! lives in its key's hash slot, keys spread over the nodes, and a client that knows one node
//! reaches every filter by following MOVED redirects.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::process::Command;

use common::{Conn, Reply, Server, wait_until};

/// A client that starts at one node and follows MOVED to the node that owns a key's slot.
struct ClusterClient {
    conns: HashMap<u16, Conn>,
    /// The node each slot was last redirected to.
    slots: HashMap<u16, u16>,
    first: u16,
    redirects: usize,
}

impl ClusterClient {
    fn new(port: u16) -> ClusterClient {
        ClusterClient {
            conns: HashMap::new(),
            slots: HashMap::new(),
            first: port,
            redirects: 0,
        }
    }

    fn conn(&mut self, port: u16) -> &mut Conn {
        self.conns
            .entry(port)
            .or_insert_with(|| Conn::connect(port).unwrap())
    }

    /// Runs a command whose first key is `args[1]`; returns the reply and the port that gave it.
    fn cmd<A: AsRef<[u8]>>(&mut self, args: &[A]) -> (Reply, u16) {
        let slot = key_slot(args[1].as_ref());
        let mut port = *self.slots.get(&slot).unwrap_or(&self.first);
        for _ in 0..5 {
            let reply = self.conn(port).cmd(args);
            match &reply {
                Reply::Error(message) if message.starts_with("MOVED ") => {
                    // MOVED <slot> <host>:<port>
                    let mut parts = message.split_whitespace().skip(1);
                    let moved_slot: u16 = parts.next().unwrap().parse().unwrap();
                    assert_eq!(
                        moved_slot, slot,
                        "our slot computation matches the server's"
                    );
                    let address = parts.next().unwrap();
                    port = address.rsplit(':').next().unwrap().parse().unwrap();
                    self.slots.insert(slot, port);
                    self.redirects += 1;
                }
                _ => return (reply, port),
            }
        }
        panic!(
            "too many redirects for {:?}",
            String::from_utf8_lossy(args[0].as_ref())
        );
    }

    /// `{family}.SCANDUMP key` from its node, then every pair `{family}.LOADCHUNK`ed into
    /// `into` (a key of the same slot), each answered `OK`.
    fn dump_and_restore(&mut self, family: &str, key: &str, into: &str) {
        let mut chunks = Vec::new();
        let mut iter = 0;
        loop {
            let scandump = format!("{family}.SCANDUMP");
            let (reply, _) = self.cmd(&[scandump.as_str(), key, &iter.to_string()]);
            let Reply::Array(Some(pair)) = reply else {
                panic!("{reply:?}")
            };
            iter = pair[0].int();
            if iter == 0 {
                break;
            }
            chunks.push((iter.to_string(), pair[1].bytes()));
        }
        let loadchunk = format!("{family}.LOADCHUNK");
        for (iter, bytes) in &chunks {
            let args: [&[u8]; 4] = [
                loadchunk.as_bytes(),
                into.as_bytes(),
                iter.as_bytes(),
                bytes,
            ];
            assert_eq!(self.cmd(&args).0, Reply::Status("OK".into()));
        }
    }
}

/// CRC16/XMODEM of the key (or of its `{hash tag}`) modulo 16384, as Redis Cluster computes it.
fn key_slot(key: &[u8]) -> u16 {
    let key = match key.iter().position(|&b| b == b'{') {
        Some(open) => match key[open + 1..].iter().position(|&b| b == b'}') {
            Some(len) if len > 0 => &key[open + 1..open + 1 + len],
            _ => key,
        },
        None => key,
    };
    let mut crc: u16 = 0;
    for &byte in key {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc % 16384
}

#[test]
fn three_node_cluster_with_moved_redirects() {
    let cluster_args = [
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        "nodes.conf",
        "--cluster-node-timeout",
        "5000",
    ];
    let nodes: Vec<Server> = (0..3)
        .map(|i| Server::start_with(&format!("node{i}"), &cluster_args))
        .collect();
    let mut create = Command::new(common::cli_binary());
    create.args(["--cluster", "create"]);
    for node in &nodes {
        create.arg(format!("127.0.0.1:{}", node.port));
    }
    let output = create
        .args(["--cluster-replicas", "0", "--cluster-yes"])
        .output()
        .expect("redis-cli is installed");
    assert!(
        output.status.success(),
        "redis-cli --cluster create failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    for node in &nodes {
        let mut conn = node.conn();
        wait_until("cluster_state:ok", || {
            conn.cmd(&["CLUSTER", "INFO"])
                .text()
                .contains("cluster_state:ok")
        });
    }
    assert_eq!(key_slot(b"123456789"), 12739, "CRC16/XMODEM check value");

    // The client knows only the first node.
    let mut client = ClusterClient::new(nodes[0].port);
    let mut owner = BTreeMap::new();
    for i in 0..30 {
        let key = format!("filter:{i}");
        let (reply, _) = client.cmd(&["SBF.RESERVE", &key, "0.01", "1000"]);
        assert_eq!(reply, Reply::Status("OK".into()), "{key}");
        let item_a = format!("{key}/a");
        let item_b = format!("{key}/b");
        let (reply, port) = client.cmd(&["SBF.MADD", &key, &item_a, &item_b]);
        assert_eq!(reply.ints(), [1, 1]);
        owner.insert(key, port);
    }
    assert!(client.redirects > 0, "some keys live on other nodes");
    for node in &nodes {
        let keys = owner.values().filter(|&&port| port == node.port).count();
        assert!(keys > 0, "node {} holds none of the 30 filters", node.port);
        // Each node holds exactly the filters whose slots it owns.
        assert_eq!(node.conn().cmd(&["DBSIZE"]).int(), keys as i64);
    }
    // Reads from the one node the client started with reach every filter.
    let mut reader = ClusterClient::new(nodes[0].port);
    for (key, &port) in &owner {
        let present = format!("{key}/a");
        let (reply, answered) = reader.cmd(&["SBF.MEXISTS", key, &present, "absent"]);
        assert_eq!(reply.ints(), [1, 0], "{key}");
        assert_eq!(answered, port);
        let (card, _) = reader.cmd(&["SBF.CARD", key]);
        assert_eq!(card.int(), 2);
    }

    // MERGE needs every key in one slot: hash tags put them there; otherwise CROSSSLOT.
    client.cmd(&["SBF.RESERVE", "{tenant}:a", "0.01", "1000"]);
    client.cmd(&["SBF.RESERVE", "{tenant}:b", "0.01", "1000"]);
    client.cmd(&["SBF.ADD", "{tenant}:a", "left"]);
    client.cmd(&["SBF.ADD", "{tenant}:b", "right"]);
    let (reply, _) = client.cmd(&["SBF.MERGE", "{tenant}:u", "{tenant}:a", "{tenant}:b"]);
    assert_eq!(reply, Reply::Status("OK".into()));
    let (reply, _) = client.cmd(&["SBF.MEXISTS", "{tenant}:u", "left", "right"]);
    assert_eq!(reply.ints(), [1, 1]);
    let spread: Vec<&String> = owner.keys().collect();
    let (a, b) = (0..spread.len())
        .flat_map(|i| (0..spread.len()).map(move |j| (i, j)))
        .find(|&(i, j)| {
            owner[spread[i]] == owner[spread[j]]
                && key_slot(spread[i].as_bytes()) != key_slot(spread[j].as_bytes())
        })
        .map(|(i, j)| (spread[i].clone(), spread[j].clone()))
        .expect("two filters on one node in different slots");
    let (reply, _) = client.cmd(&["SBF.MERGE", &a, &a, &b]);
    assert!(reply.error().starts_with("CROSSSLOT"), "{reply:?}");

    // Scaling, NONSCALING, SCANDUMP/LOADCHUNK and COPY through redirects: a chain of three
    // sub-filters is dumped from its node and restored under a key in the same slot.
    let (reply, _) = client.cmd(&["SBF.RESERVE", "{chain}", "0.01", "10", "EXPANSION", "2"]);
    assert_eq!(reply, Reply::Status("OK".into()));
    let items: Vec<String> = (0..60).map(|i| format!("c{i}")).collect();
    let mut madd = vec!["SBF.MADD", "{chain}"];
    madd.extend(items.iter().map(String::as_str));
    let added: i64 = client.cmd(&madd).0.ints().iter().sum();
    let (filters, _) = client.cmd(&["SBF.INFO", "{chain}", "FILTERS"]);
    assert_eq!(filters.ints(), [3]);
    client.dump_and_restore("SBF", "{chain}", "{chain}:restored");
    let (copied, _) = client.cmd(&["COPY", "{chain}", "{chain}:copy"]);
    assert_eq!(copied.int(), 1);
    for key in ["{chain}:restored", "{chain}:copy"] {
        let mut mexists = vec!["SBF.MEXISTS", key];
        mexists.extend(items.iter().map(String::as_str));
        let (reply, _) = client.cmd(&mexists);
        assert!(reply.ints().iter().all(|&found| found == 1), "{key}");
        assert_eq!(client.cmd(&["SBF.CARD", key]).0.int(), added, "{key}");
    }
    let (reply, _) = client.cmd(&["SBF.RESERVE", "{fixed}", "0.01", "2", "NONSCALING"]);
    assert_eq!(reply, Reply::Status("OK".into()));
    let (reply, _) = client.cmd(&["SBF.MADD", "{fixed}", "a", "b", "c"]);
    assert_eq!(
        reply,
        Reply::Array(Some(vec![
            Reply::Int(1),
            Reply::Int(1),
            Reply::Error("ERR non scaling filter is full".into())
        ]))
    );

    // The deletable type (SCF.*) through redirects: a filter that grew to three stages,
    // deletes, SCANDUMP/LOADCHUNK into a key of the same slot, and COPY.
    let (reply, _) = client.cmd(&["SCF.RESERVE", "{cf}", "100", "EXPANSION", "2"]);
    assert_eq!(reply, Reply::Status("OK".into()));
    let items: Vec<String> = (0..500).map(|i| format!("q{i}")).collect();
    let mut insert = vec!["SCF.INSERT", "{cf}", "ITEMS"];
    insert.extend(items.iter().map(String::as_str));
    assert!(client.cmd(&insert).0.ints().iter().all(|&added| added == 1));
    assert_eq!(client.cmd(&["SCF.DEL", "{cf}", "q0"]).0.int(), 1);
    client.dump_and_restore("SCF", "{cf}", "{cf}:restored");
    assert_eq!(client.cmd(&["COPY", "{cf}", "{cf}:copy"]).0.int(), 1);
    for key in ["{cf}", "{cf}:restored", "{cf}:copy"] {
        let mut mexists = vec!["SCF.MEXISTS", key];
        mexists.extend(items[1..].iter().map(String::as_str));
        let (reply, _) = client.cmd(&mexists);
        assert!(reply.ints().iter().all(|&found| found == 1), "{key}");
        let (count, _) = client.cmd(&["SCF.COUNT", key, "q1"]);
        assert_eq!(count.int(), 1, "{key}");
    }
}
