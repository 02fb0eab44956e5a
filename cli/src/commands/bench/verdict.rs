//! The verdict of `splitbloom bench`: what the run says about the kernel new filters use here.

use splitbloom::Kernel;

use super::{Row, Spread};
use crate::json;
use crate::print::out;

/// What the run says about the kernel new filters use here, at the largest size measured (the one
/// least helped by the caches).
pub struct Verdict<'a> {
    /// The row of the kernel `Kernel::best` picks (or the only kernel measured).
    chosen: &'a Row,
    /// The rows of the other kernels at the same size.
    others: Vec<&'a Row>,
    /// The standard error of the measured false-positive rate if the prediction is right.
    standard_error: f64,
}

impl<'a> Verdict<'a> {
    /// The verdict on `rows`, if any row was measured.
    pub fn of(rows: &'a [Row]) -> Option<Verdict<'a>> {
        let items = rows.iter().map(|row| row.items).max()?;
        let at_size: Vec<&Row> = rows.iter().filter(|row| row.items == items).collect();
        let best = Kernel::best();
        let chosen = at_size
            .iter()
            .copied()
            .find(|row| row.kernel == best)
            .unwrap_or(at_size[0]);
        let others = at_size
            .into_iter()
            .filter(|row| row.kernel != chosen.kernel)
            .collect();
        let p = chosen.predicted_fpr;
        let standard_error = (p * (1.0 - p) / chosen.strangers.max(1) as f64).sqrt();
        Some(Verdict {
            chosen,
            others,
            standard_error,
        })
    }

    /// How many standard errors the measured rate is from the predicted one.
    fn fpr_deviation(&self) -> f64 {
        let difference = self.chosen.measured_fpr - self.chosen.predicted_fpr;
        if self.standard_error > 0.0 {
            difference / self.standard_error
        } else if difference == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    }

    /// Whether the measured rate agrees with the prediction: within 4 standard errors (a
    /// deviation that large happens by chance about once in 16,000 runs).
    fn fpr_agrees(&self) -> bool {
        self.fpr_deviation().abs() <= 4.0
    }

    /// Whether `other` and the chosen kernel are level on lookups: either median lies within
    /// the other's spread (min to max of its samples), so the run cannot rank them.
    fn is_level(&self, other: &Row) -> bool {
        let (chosen, other) = (self.chosen.lookup_spread(), other.lookup_spread());
        let within = |median: f64, spread: Spread| spread.min <= median && median <= spread.max;
        within(other.median, chosen) || within(chosen.median, other)
    }

    /// The fastest other kernel, if it beat the chosen one on lookups beyond the spread.
    fn faster_other(&self) -> Option<&Row> {
        self.others
            .iter()
            .copied()
            .filter(|row| row.lookup_ns() < self.chosen.lookup_ns() && !self.is_level(row))
            .min_by(|a, b| a.lookup_ns().total_cmp(&b.lookup_ns()))
    }

    /// The other kernels level with the chosen one, by name.
    fn level_names(&self) -> Vec<&'static str> {
        let level = self.others.iter().filter(|row| self.is_level(row));
        level.map(|row| row.kernel.name()).collect()
    }

    /// The one-line conclusion.
    fn conclusion(&self) -> String {
        let kernel = self.chosen.kernel;
        let level = self.level_names();
        let speed = match self.faster_other() {
            None if self.others.is_empty() => {
                format!("{kernel} is the only kernel measured")
            }
            None if level.is_empty() => format!(
                "{kernel}, the kernel new filters use here, is the fastest here, beyond the spread of the samples"
            ),
            None => format!(
                "{kernel}, the kernel new filters use here, and {} are level: their medians are within the spread of each other's samples, so this run cannot rank them (more --samples, on a quiet machine, may)",
                level.join(" and ")
            ),
            Some(other) => {
                let gain = 100.0 * (1.0 - other.lookup_ns() / self.chosen.lookup_ns());
                format!(
                    "{} looked up {gain:.0}% faster than {kernel}, the kernel new filters use here, beyond the spread of their samples: rerun with more --samples, and if it persists, report it",
                    other.kernel
                )
            }
        };
        let fpr = if self.fpr_agrees() {
            format!(
                "the false-positive rate measured with {kernel} is as predicted ({:+.1} standard errors)",
                self.fpr_deviation()
            )
        } else {
            format!(
                "the false-positive rate measured with {kernel} is {:+.1} standard errors from the prediction: report it",
                self.fpr_deviation()
            )
        };
        format!("{speed}; {fpr}")
    }

    /// Prints the verdict after the tables.
    pub fn print(&self, samples: usize) -> Result<(), String> {
        let row = self.chosen;
        let spread = |name: &str, spread: Spread| {
            format!(
                "{name} {:.2} / {:.2} / {:.2}",
                spread.min, spread.median, spread.max
            )
        };
        out!("")?;
        out!("verdict at {} keys:", row.items)?;
        out!(
            "  kernel      {} ({})",
            row.kernel,
            if row.kernel == Kernel::best() {
                "the one new filters use here: Kernel::best()"
            } else {
                "forced with --kernel"
            }
        )?;
        out!(
            "  spread      ns/op, min / median / max of {samples} samples: {}, {}, {}",
            spread("insert", row.insert_ns),
            spread("hit", row.hit_ns),
            spread("miss", row.miss_ns)
        )?;
        out!(
            "  fpr         measured {:.4}% over {} lookups, predicted {:.4}% (math::fpr_for_keys_per_block): {:+.1} standard errors of {:.4}%",
            100.0 * row.measured_fpr,
            row.strangers,
            100.0 * row.predicted_fpr,
            self.fpr_deviation(),
            100.0 * self.standard_error
        )?;
        if !self.others.is_empty() {
            let ratios: Vec<String> = self
                .others
                .iter()
                .map(|other| {
                    format!(
                        "{} {:.2}x{}",
                        other.kernel,
                        other.lookup_ns() / row.lookup_ns(),
                        if self.is_level(other) { " (level)" } else { "" }
                    )
                })
                .collect();
            out!(
                "  kernels     time per lookup (median of hit and miss) against {}: {}",
                row.kernel,
                ratios.join(", ")
            )?;
        }
        out!("conclusion: {}", self.conclusion())
    }

    /// The verdict as a JSON object.
    pub fn json(&self) -> String {
        let ratios: Vec<String> = self
            .others
            .iter()
            .map(|other| {
                format!(
                    "{{\"kernel\":\"{}\",\"lookup_ns\":{},\"lookup_time_ratio\":{},\"level\":{}}}",
                    other.kernel.name(),
                    json::number(other.lookup_ns()),
                    json::number(other.lookup_ns() / self.chosen.lookup_ns()),
                    self.is_level(other)
                )
            })
            .collect();
        format!(
            "{{\"items\":{},\"kernel\":\"{}\",\"best_kernel\":\"{}\",\"lookup_ns\":{},\"measured_fpr\":{},\"predicted_fpr\":{},\"fpr_standard_error\":{},\"fpr_deviation\":{},\"fpr_agrees\":{},\"others\":[{}],\"conclusion\":{}}}",
            self.chosen.items,
            self.chosen.kernel.name(),
            Kernel::best().name(),
            json::number(self.chosen.lookup_ns()),
            json::number(self.chosen.measured_fpr),
            json::number(self.chosen.predicted_fpr),
            json::number(self.standard_error),
            json::number(self.fpr_deviation()),
            self.fpr_agrees(),
            ratios.join(","),
            json::string(&self.conclusion())
        )
    }
}

#[cfg(test)]
mod tests {
    use splitbloom::Kernel;

    use super::{Row, Spread, Verdict};

    /// A row whose hits and misses took `min`, `median` and `max` ns over the samples.
    fn row(kernel: Kernel, min: f64, median: f64, max: f64) -> Row {
        let spread = Spread { min, median, max };
        Row {
            kernel,
            items: 10_000_000,
            bytes: 12_500_000,
            insert_ns: spread,
            hit_ns: spread,
            miss_ns: spread,
            measured_fpr: 0.01,
            predicted_fpr: 0.01,
            strangers: 10_000_000,
        }
    }

    /// The conclusion when the chosen kernel's lookups took `chosen` and another's `other`.
    fn conclusion(chosen: (f64, f64, f64), other: (f64, f64, f64)) -> String {
        let best = Kernel::best();
        let another = if best == Kernel::Scalar {
            Kernel::Portable
        } else {
            Kernel::Scalar
        };
        let rows = [
            row(best, chosen.0, chosen.1, chosen.2),
            row(another, other.0, other.1, other.2),
        ];
        Verdict::of(&rows).unwrap().conclusion()
    }

    #[test]
    fn medians_within_the_spread_are_level_not_ranked() {
        // 1.05x apart, inside a 7.8-22.9 ns spread: either way round, no winner.
        for (chosen, other) in [
            ((7.8, 10.0, 22.9), (8.1, 10.5, 20.4)),
            ((8.1, 10.5, 20.4), (7.8, 10.0, 22.9)),
        ] {
            let text = conclusion(chosen, other);
            assert!(text.contains("are level"), "{text}");
            assert!(
                !text.contains("fastest") && !text.contains("faster"),
                "{text}"
            );
        }
    }

    #[test]
    fn medians_beyond_the_spread_are_ranked() {
        let text = conclusion((2.0, 2.1, 2.3), (9.0, 9.5, 11.0));
        assert!(text.contains("is the fastest here"), "{text}");
        let text = conclusion((9.0, 9.5, 11.0), (2.0, 2.1, 2.3));
        assert!(text.contains("looked up 78% faster"), "{text}");
    }
}
