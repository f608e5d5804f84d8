//! The server features some tests depend on, each from the Redis version that added it. On
//! older servers the tests check the documented reduction instead (README, "Tested servers"),
//! which is RedisBloom's behaviour on those servers too.

use super::{server_at_least, server_is_valkey, server_version};

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
    match server_version() {
        Some((7, 4, _)) => server_is_valkey(),
        Some((8, 0, _)) => !server_is_valkey(),
        _ => true,
    }
}
/// A RESTORE whose payload the module refuses answers `ERR Bad data format`: Redis ≥ 6.2.
/// Redis 6.0 exits instead ("The RDB file contains module data … not able to load"),
/// whatever the module.
pub fn survives_refused_restore() -> bool {
    server_at_least((6, 2, 0))
}
