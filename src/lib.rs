//! redis-bf: Bloom-filter commands for Redis and Valkey, compatible with RedisBloom.
pub mod core;
