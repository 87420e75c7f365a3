//! What an embedded widget keeps behind a click: a blog post's widget opens at its point (about one
//! screen: the verdict and its chart, the table of results) and the rest is one click away.

use leptos::prelude::*;

/// On a full page its children as they are; in an embed, inside a closed `<details>` whose
/// summary names what is inside. Opening it grows the frame through the auto-height protocol
/// (`assets/embed.js`), as any change of height does.
#[component]
pub fn EmbedMore(
    /// Embedded in an iframe.
    embed: bool,
    /// What the disclosure holds, in a few words ("Change the setup").
    summary: &'static str,
    /// `data-testid` of the `<details>` (embeds only).
    testid: &'static str,
    /// Extra classes of the `<details>` (e.g. the grid area it takes).
    #[prop(optional)]
    class: &'static str,
    /// What is kept behind the click.
    children: Children,
) -> impl IntoView {
    if embed {
        view! {
            <details class=format!("embed-more {class}") data-testid=testid>
                <summary>{summary}</summary>
                {children()}
            </details>
        }
        .into_any()
    } else {
        children().into_any()
    }
}
