#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| redis_bf_fuzz::targets::topk_window(data));
