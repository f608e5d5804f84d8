//! A minimal RESP2/RESP3 client that keeps every wire distinction (simple vs bulk strings,
//! errors with or without a code, nulls, booleans, maps), so replies can be compared byte for
//! byte with RedisBloom's; and shorthands for the replies tests expect.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::feature;

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
