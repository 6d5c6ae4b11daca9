//! The six post-process rules that turn a free-form generation into the text that
//! is scored (for `code_exec` tasks: the code that runs).

/// A post-process rule, as named in lesson-70 task files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PostProcess {
    /// The generation as it is.
    None,
    /// Leading and trailing whitespace removed.
    StripWhitespace,
    /// Lower-cased.
    Lower,
    /// The first standalone capital letter (an answer choice such as `B`).
    ExtractLetter,
    /// The body of the first complete triple-backtick fence; the whole generation
    /// when it has no fence at all.
    ExtractCodeBlock,
    /// The first non-blank line, trimmed.
    ExtractFirstLine,
}

/// Why a rule could not produce text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// Occurs when a generation opens a code fence but never closes it.
    #[error("no code block")]
    NoCodeBlock,
}

const FENCE: &str = "```";

impl PostProcess {
    /// The rule names accepted in task files.
    pub const NAMES: [&'static str; 6] = [
        "none",
        "strip_whitespace",
        "lower",
        "extract_letter",
        "extract_code_block",
        "extract_first_line",
    ];

    /// Parses a rule name as written in a task file.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "none" => Self::None,
            "strip_whitespace" => Self::StripWhitespace,
            "lower" => Self::Lower,
            "extract_letter" => Self::ExtractLetter,
            "extract_code_block" => Self::ExtractCodeBlock,
            "extract_first_line" => Self::ExtractFirstLine,
            _ => return None,
        })
    }

    /// Applies the rule to a generation.
    pub fn apply(self, generation: &str) -> Result<String, ExtractError> {
        Ok(match self {
            Self::None => generation.to_owned(),
            Self::StripWhitespace => generation.trim().to_owned(),
            Self::Lower => generation.to_lowercase(),
            Self::ExtractLetter => extract_letter(generation),
            Self::ExtractCodeBlock => return extract_code_block(generation).map(str::to_owned),
            Self::ExtractFirstLine => generation
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("")
                .to_owned(),
        })
    }
}

/// The body of the first complete fenced block. The rest of the opening fence's
/// line (a language tag such as `python`) is dropped. No fence at all: the whole
/// generation. A fence without a complete block: [`ExtractError::NoCodeBlock`].
pub fn extract_code_block(generation: &str) -> Result<&str, ExtractError> {
    let Some(open) = generation.find(FENCE) else {
        return Ok(generation);
    };
    let after_open = &generation[open + FENCE.len()..];
    let Some(newline) = after_open.find('\n') else {
        return Err(ExtractError::NoCodeBlock);
    };
    let body = &after_open[newline + 1..];
    let Some(close) = body.find(FENCE) else {
        return Err(ExtractError::NoCodeBlock);
    };
    Ok(&body[..close])
}

fn extract_letter(generation: &str) -> String {
    let chars: Vec<char> = generation.chars().collect();
    chars
        .iter()
        .enumerate()
        .find(|&(i, c)| {
            c.is_ascii_uppercase()
                && (i == 0 || !chars[i - 1].is_alphanumeric())
                && chars.get(i + 1).is_none_or(|n| !n.is_alphanumeric())
        })
        .map(|(_, c)| c.to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_block_drops_the_language_tag_and_prose() {
        let g = "Here you go:\n```python\ndef f():\n    return 1\n```\nand more\n```\nx\n```";
        assert_eq!(extract_code_block(g), Ok("def f():\n    return 1\n"));
    }

    #[test]
    fn code_block_without_fence_is_the_whole_generation() {
        assert_eq!(extract_code_block("    return 1\n"), Ok("    return 1\n"));
    }

    #[test]
    fn code_block_with_unclosed_fence_has_no_code() {
        assert_eq!(
            extract_code_block("text\n```python\nx = 1\n"),
            Err(ExtractError::NoCodeBlock)
        );
        assert_eq!(extract_code_block("```"), Err(ExtractError::NoCodeBlock));
    }

    #[test]
    fn code_block_with_bare_fence_keeps_the_body() {
        assert_eq!(extract_code_block("```\nx = 1\n```"), Ok("x = 1\n"));
    }

    #[test]
    fn every_named_rule_parses_and_applies() {
        for name in PostProcess::NAMES {
            assert!(PostProcess::parse(name).is_some(), "{name}");
        }
        assert_eq!(PostProcess::parse("upper"), None);
        let g = "  The answer is (B), not C.\nsecond  ";
        assert_eq!(PostProcess::None.apply(g).unwrap(), g);
        assert_eq!(
            PostProcess::StripWhitespace.apply(g).unwrap(),
            "The answer is (B), not C.\nsecond"
        );
        assert_eq!(PostProcess::Lower.apply("AbC").unwrap(), "abc");
        assert_eq!(PostProcess::ExtractLetter.apply(g).unwrap(), "B");
        assert_eq!(
            PostProcess::ExtractLetter.apply("no letter here").unwrap(),
            ""
        );
        assert_eq!(
            PostProcess::ExtractFirstLine
                .apply("\n\n  first \nsecond")
                .unwrap(),
            "first"
        );
    }
}
