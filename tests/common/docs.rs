//! COMMAND DOCS as RedisBloom's flow test `test_docs_help.py` reads it: named fields, and
//! each argument's name and type (with its sub-arguments for a block or a choice).

use super::{Conn, Value};

/// One command's COMMAND DOCS reply (Redis ≥ 7.0).
pub struct CommandDoc {
    fields: Vec<Value>,
}

/// The value after `name` in a flat list of name, value pairs.
fn field_of(fields: &[Value], name: &str) -> Option<Value> {
    fields
        .chunks_exact(2)
        .find(|pair| pair[0].text() == name)
        .map(|pair| pair[1].clone())
}

/// `(name, type)` of each argument of a list, in order.
fn names_and_types(args: &Value) -> Vec<(String, String)> {
    args.array()
        .iter()
        .map(|arg| {
            let arg = arg.array();
            let get = |name: &str| field_of(&arg, name).expect(name).text();
            (get("name"), get("type"))
        })
        .collect()
}

impl CommandDoc {
    pub fn read(c: &mut Conn, command: &str) -> CommandDoc {
        let reply = c.call(&["COMMAND", "DOCS", command]).array();
        assert_eq!(reply.len(), 2, "COMMAND DOCS {command}: {reply:?}");
        CommandDoc {
            fields: reply[1].array(),
        }
    }

    pub fn field(&self, name: &str) -> Value {
        field_of(&self.fields, name).unwrap_or_else(|| panic!("no {name} in {:?}", self.fields))
    }

    /// `(name, type)` of each top-level argument.
    pub fn args(&self) -> Vec<(String, String)> {
        names_and_types(&self.field("arguments"))
    }

    /// `(name, type, token)` of each sub-argument of the top-level argument `name` (a block
    /// or a choice); the token is empty where there is none.
    pub fn sub_args(&self, name: &str) -> Vec<(String, String, String)> {
        let args = self.field("arguments").array();
        let arg = args
            .iter()
            .map(Value::array)
            .find(|arg| field_of(arg, "name").is_some_and(|n| n.text() == name))
            .unwrap_or_else(|| panic!("no argument {name}"));
        field_of(&arg, "arguments")
            .expect("sub-arguments")
            .array()
            .iter()
            .map(|sub| {
                let sub = sub.array();
                let get = |name: &str| field_of(&sub, name).map(|v| v.text()).unwrap_or_default();
                (get("name"), get("type"), get("token"))
            })
            .collect()
    }
}

/// Pairs of string literals, as `args()` returns them.
pub fn named(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect()
}
