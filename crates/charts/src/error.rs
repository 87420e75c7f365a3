//! The one error type of the charts.

use plotters::drawing::DrawingAreaErrorKind;

/// Why a chart could not be drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChartError {
    /// The plotters backend failed (canvas lost, font error, layout too small); its message.
    Backend(String),
    /// The input cannot be drawn, e.g. an invalid memory setup; says why.
    Input(String),
}

impl std::fmt::Display for ChartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChartError::Backend(m) => write!(f, "drawing failed: {m}"),
            ChartError::Input(m) => write!(f, "nothing to draw: {m}"),
        }
    }
}

impl std::error::Error for ChartError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for ChartError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        ChartError::Backend(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_which_side_failed() {
        assert_eq!(
            ChartError::Input("no GPU".into()).to_string(),
            "nothing to draw: no GPU"
        );
        assert!(ChartError::Backend("x".into())
            .to_string()
            .starts_with("drawing failed"));
    }
}
