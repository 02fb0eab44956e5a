//! What the plain benchmark binaries (`workload`, `single_key_parts`) read from their
//! environment: counts such as `1e6` or `10k`, settings with defaults, and the CPU's name.

/// A count written as `1e6`, `10000`, `10_000`, `10k` or `1M`.
pub fn parse_count(text: &str) -> usize {
    let text = text.trim().replace('_', "");
    let (number, scale) = match text.chars().last() {
        Some('k' | 'K') => (&text[..text.len() - 1], 1e3),
        Some('m' | 'M') => (&text[..text.len() - 1], 1e6),
        _ => (&text[..], 1.0),
    };
    let value: f64 = number.parse().expect("a count such as 1e6, 10000 or 10k");
    (value * scale).round() as usize
}

/// The environment variable `name` parsed by `parse`, or `default` when it is not set.
pub fn env_or<T>(name: &str, default: T, parse: impl Fn(&str) -> T) -> T {
    std::env::var(name).map_or(default, |value| parse(&value))
}

/// The CPU's model name with its family and model numbers, which tell CPU generations apart
/// where a virtual machine's model name does not (`AMD EPYC` is Zen 3 at family 25, Zen 5 at
/// family 26).
pub fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|line| line.split(':').next().map(str::trim) == Some(name))
            .and_then(|line| line.split(':').nth(1))
            .map(|value| value.trim().to_string())
    };
    let model_name = field("model name").unwrap_or_else(|| "unknown".into());
    match (field("cpu family"), field("model")) {
        (Some(family), Some(model)) => format!("{model_name} (family {family}, model {model})"),
        _ => model_name,
    }
}
