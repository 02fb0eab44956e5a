//! Prints the README's sizing table from the crate's own math: for each number of bits per
//! key, the split-block false-positive rate (what splitbloom delivers) next to the classic Bloom
//! rate (what the textbook formula promises), and the bits per key needed for common targets.
//!
//! `cargo run --example sizing_table`

use splitbloom::math;

fn main() {
    println!("| bits/key | split-block FPR | classic Bloom FPR |");
    println!("|---:|---:|---:|");
    for bits in [4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 20.0, 24.0, 32.0] {
        println!(
            "| {bits} | {} | {} |",
            percent(math::false_positive_rate(bits)),
            percent(math::classic_false_positive_rate(bits))
        );
    }
    println!();
    println!("| target FPR | bits/key (split-block) |");
    println!("|---:|---:|");
    for target in [0.1, 0.05, 0.01, 0.005, 0.001, 0.0001, 0.00001] {
        let bits = math::bits_per_key_for_fpr(target).expect("targets are in (0, 1)");
        println!("| {target} | {bits:.2} |");
    }
}

/// A rate as a percentage with four significant digits.
fn percent(rate: f64) -> String {
    let percent = 100.0 * rate;
    if percent >= 0.01 {
        format!("{percent:.4}%")
    } else {
        format!("{percent:.3e}%")
    }
}
