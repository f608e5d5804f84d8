//! `BF.DEBUG key`
//!
//! An array of bulk strings: `size:<items>`, then one line per sub-filter, oldest first,
//! `bytes:<n> bits:<n> hashes:<k> hashwidth:<64|32> capacity:<n> size:<n> ratio:<error %g>`
//! (hashwidth 128 for the fast layout). A filter that forgets lists its shape and its
//! generations instead (`window.rs`).
//! `ERR not found` / `WRONGTYPE`.

use super::values::{lookup_read, Bloom};
use super::{valkey, window};
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::reply::Reply;
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::hash::HashKind;

pub static DEBUG: CommandSpec = CommandSpec {
    name: "bf.debug",
    flags: "readonly fast",
    arity: 2,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Shows the internal layout of a Bloom filter",
    complexity: "O(n), where n is the number of sub-filters",
    since: "1.0.0",
    tips: Some("nondeterministic_output"),
    args: &[KEY_ARG],
    run: debug,
};

fn debug(call: &Call) -> CommandResult {
    let key = call.open_for_read()?;
    let chain = match lookup_read(&key).existing()? {
        Bloom::Chain(chain) => chain,
        Bloom::Window(filter) => return Ok(window::debug(filter, window::read_time(call, filter))),
        Bloom::Valkey(object) => return Ok(valkey::debug(object)),
    };
    let hashwidth = match chain.hash_kind() {
        HashKind::Murmur64 => 64,
        HashKind::Murmur32 => 32,
        HashKind::Xxh3 => 128,
    };
    let mut lines = vec![Reply::Bulk(format!("size:{}", chain.items()).into_bytes())];
    for link in chain.links() {
        let shape = link.shape();
        let line = format!(
            "bytes:{} bits:{} hashes:{} hashwidth:{} capacity:{} size:{} ratio:{}",
            shape.bytes(),
            shape.bytes() * 8,
            shape.hashes(),
            hashwidth,
            shape.entries(),
            link.items(),
            format_g(shape.error())
        );
        lines.push(Reply::Bulk(line.into_bytes()));
    }
    Ok(Reply::Array(lines))
}

/// C's `%g`: six significant digits, trailing zeros dropped, scientific notation (with at
/// least two exponent digits) when the exponent is below -4 or at least 6.
fn format_g(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let scientific = format!("{value:.5e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if (-4..6).contains(&exponent) {
        let decimals = (5 - exponent).max(0) as usize;
        trim_zeros(format!("{value:.decimals$}"))
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!(
            "{}e{sign}{:02}",
            trim_zeros(mantissa.to_string()),
            exponent.abs()
        )
    }
}

fn trim_zeros(number: String) -> String {
    if number.contains('.') {
        number
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        number
    }
}

#[cfg(test)]
mod tests {
    use super::format_g;

    #[test]
    fn formats_like_printf_g() {
        for (value, text) in [
            (0.0005, "0.0005"),
            (0.005, "0.005"),
            (0.01, "0.01"),
            (0.25, "0.25"),
            (0.1, "0.1"),
            (1e-05, "1e-05"),
            (0.000390625, "0.000390625"),
            (1.52587890625e-05, "1.52588e-05"),
            (0.0001220703125, "0.00012207"),
            (123456789.0, "1.23457e+08"),
            (2.5e-300, "2.5e-300"),
        ] {
            assert_eq!(format_g(value), text);
        }
    }
}
