//! The grid's columns, and the order task ids sort in.

use std::cmp::Ordering;

/// Grid columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// Task id (then sample).
    Task,
    /// Sample number.
    Sample,
    /// Outcome.
    Outcome,
    /// Score.
    Score,
    /// Passed / total.
    Passed,
    /// Duration.
    Duration,
    /// Flags (signs of gaming the grader).
    Flags,
    /// Detail text.
    Detail,
}

impl Column {
    /// All columns in display order.
    pub const ALL: [Column; 8] = [
        Column::Task,
        Column::Sample,
        Column::Outcome,
        Column::Score,
        Column::Passed,
        Column::Duration,
        Column::Flags,
        Column::Detail,
    ];

    /// Header text.
    pub fn title(self) -> &'static str {
        match self {
            Column::Task => "task",
            Column::Sample => "sample",
            Column::Outcome => "outcome",
            Column::Score => "score",
            Column::Passed => "passed",
            Column::Duration => "ms",
            Column::Flags => "flags",
            Column::Detail => "detail",
        }
    }
}

/// Orders task ids as people read them: runs of digits by their number, so
/// `HumanEval/2` comes before `HumanEval/10`.
pub(super) fn natural_cmp(a: &str, b: &str) -> Ordering {
    fn runs(s: &str) -> impl Iterator<Item = (bool, &str)> {
        let mut rest = s;
        std::iter::from_fn(move || {
            let first = rest.chars().next()?;
            let digits = first.is_ascii_digit();
            let end = rest
                .find(|c: char| c.is_ascii_digit() != digits)
                .unwrap_or(rest.len());
            let (run, tail) = rest.split_at(end);
            rest = tail;
            Some((digits, run))
        })
    }
    let mut left = runs(a);
    let mut right = runs(b);
    loop {
        match (left.next(), right.next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some((true, x)), Some((true, y))) => {
                let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                let order = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
                if order != Ordering::Equal {
                    return order;
                }
            }
            (Some((_, x)), Some((_, y))) => {
                if x != y {
                    return x.cmp(y);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;
    use std::cmp::Ordering;

    #[test]
    fn task_ids_sort_by_their_numbers() {
        let mut ids = [
            "HumanEval/10",
            "HumanEval/2",
            "HumanEval/1",
            "Mbpp/100",
            "HumanEval/02",
            "add",
        ];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            ids,
            [
                "HumanEval/1",
                "HumanEval/02",
                "HumanEval/2",
                "HumanEval/10",
                "Mbpp/100",
                "add"
            ]
        );
        assert_eq!(natural_cmp("a9", "a10"), Ordering::Less);
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
        assert_eq!(
            natural_cmp("99999999999999999999999", "100000000000000000000000"),
            Ordering::Less
        );
    }
}
