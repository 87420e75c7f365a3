//! Light embeds: a page whose embed keeps heavy parts behind a click (Memory, Serve) has a second
//! binary (`src/bin/<page>_embed.rs`) that starts without them. index.html's boot script loads it
//! for an embed (`LIGHT` lists those pages) and loads the page's whole binary in its place when a
//! reader opens one of those parts ([`LoadsRest`]).

use crate::ui::shell::query::{Page, PageQuery};
use crate::ui::shell::url::Tab;
use leptos::prelude::*;

/// The pages with a light embed, in the order of index.html's `LIGHT` list (a test keeps the two
/// equal): each has a binary `bitbudget-<page>-embed` that mounts `app::<Light<ItsQuery>>`.
pub const LIGHT_EMBEDS: [Tab; 2] = [Tab::Memory, Tab::Serve];

/// A page with a light embed.
pub trait LightPage: PageQuery {
    /// The embedded page without what its embed keeps behind a click, keeping the address bar in
    /// step with its state (the whole page starts from that address).
    fn light_view(self) -> AnyView;
}

/// Page `P`'s light embed, as the shell shows it: the page's own URL parameters, read and noted as
/// the page reads them. It is only ever shown embedded, so the site's header is not linked; out
/// of an embed (a link the boot script read differently) it loads the whole page at once.
#[derive(Clone, Default)]
pub struct Light<P>(pub P);

impl<P: LightPage> PageQuery for Light<P> {
    const TAB: Tab = P::TAB;

    fn begin(&mut self, keys: &[String]) {
        self.0.begin(keys);
    }

    fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        self.0.apply(key, value)
    }

    fn finish(&mut self, keys: &[String], notes: &mut Vec<String>) {
        self.0.finish(keys, notes);
    }

    fn moved_to(&self) -> Option<String> {
        self.0.moved_to()
    }
}

impl<P: LightPage> Page for Light<P> {
    const EMBED_ONLY: bool = true;

    fn view(self, embed: bool) -> AnyView {
        if embed {
            self.0.light_view()
        } else {
            view! { <LoadsRest /> }.into_any()
        }
    }
}

/// What a page builds behind one of its embed's disclosures: `whole()`, or with `LIGHT` (the light
/// embed's binary) a [`LoadsRest`] in its place. `whole` is then never called, so nothing it
/// builds is linked into the light binary.
pub fn whole_or_rest<const LIGHT: bool, V: IntoView + 'static>(
    whole: impl FnOnce() -> V,
) -> AnyView {
    if LIGHT {
        view! { <LoadsRest /> }.into_any()
    } else {
        whole().into_any()
    }
}

/// What a light embed (a page's `-embed` binary: everything but what [`EmbedMore`] keeps behind a
/// click, `crate::ui::components::embed_more::EmbedMore`) builds in place of the hidden parts: a line saying the rest is loading, and a call to the
/// boot script's `bitbudgetBoot.loadRest()`, which loads the page's whole binary, mounts it in
/// this one's place from the same URL (written at once from then on: no state is lost) and
/// reopens the disclosures that were open. Calling it
/// again while it loads does nothing more. Without that loader (a test page), or when loading
/// fails, the line says so; the light widget stays usable.
#[component]
pub fn LoadsRest() -> impl IntoView {
    let failed = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        leptos::task::spawn_local(async move {
            if let Err(why) = load_rest().await {
                failed.set(Some(why));
            }
        });
    });
    view! {
        <p class="field-note" role="status" data-testid="loads-rest">
            {move || match failed.get() {
                None => "Loading the rest of the widget…".to_string(),
                Some(why) => format!("The rest of the widget could not be loaded ({why}). Open it in bitbudget below, or reload."),
            }}
        </p>
    }
}

/// Calls `window.bitbudgetBoot.loadRest()` and waits for its promise; the error says why when
/// there is no such loader or it fails.
async fn load_rest() -> Result<(), String> {
    use js_sys::{Function, Promise, Reflect};
    use wasm_bindgen::JsCast;
    // The whole page starts from the address: it must hold this widget's state, now and until
    // the swap.
    crate::ui::browser::write_address_at_once();
    let window = web_sys::window().ok_or("no window")?;
    let boot = Reflect::get(&window, &"bitbudgetBoot".into()).map_err(|_| "no loader")?;
    let load = Reflect::get(&boot, &"loadRest".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or("no loader on this page")?;
    let promise: Promise = load
        .call0(&boot)
        .ok()
        .and_then(|p| p.dyn_into().ok())
        .ok_or("the loader did not start")?;
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map(|_| ())
        .map_err(|e| match e.dyn_ref::<js_sys::Error>() {
            Some(error) => String::from(error.message()),
            None => e.as_string().unwrap_or_else(|| "unknown error".into()),
        })
}
