//! What an embedded widget keeps behind a click: a blog post's widget opens at its point (about one
//! screen: the verdict and its chart, the table of results) and the rest is one click away.

use leptos::prelude::*;

/// On a full page its children as they are; in an embed, inside a closed `<details>` whose
/// summary names what is inside, built the first time it opens and kept after (on a throttled
/// phone, Memory's, Serve's, the lab's and Bits' embeds are usable 0.25 to 0.33 s sooner for it:
/// docs/benchmarks.md).
/// Opening it grows the frame through the auto-height protocol (`assets/embed.js`), as any change
/// of height does. What the children show must therefore come from state the page owns: nothing
/// behind the click runs before it is opened.
#[component]
pub fn EmbedMore(
    /// Embedded in an iframe.
    embed: bool,
    /// What the disclosure holds, in a few words ("Change the setup").
    #[prop(into)]
    summary: String,
    /// `data-testid` of the `<details>` (embeds only).
    testid: &'static str,
    /// Extra classes of the `<details>` (e.g. the grid area it takes).
    #[prop(optional)]
    class: &'static str,
    /// What is kept behind the click.
    children: Children,
) -> impl IntoView {
    if !embed {
        return children().into_any();
    }
    let unbuilt = StoredValue::new_local(Some(children));
    let opened = RwSignal::new(false);
    let on_toggle = move |ev: leptos::ev::Event| {
        let open = event_target::<web_sys::HtmlDetailsElement>(&ev).open();
        if open && !opened.get_untracked() {
            opened.set(true);
        }
    };
    view! {
        <details class=format!("embed-more {class}") data-testid=testid on:toggle=on_toggle>
            <summary>{summary}</summary>
            {move || opened.get().then(|| unbuilt.try_update_value(Option::take).flatten().map(|build| build()))}
        </details>
    }
    .into_any()
}
