//! Browser tests of the Learn page: every chapter's computed numbers, keyboard navigation from
//! chapter 1 to 13, and a bad `step` in the link.
#![cfg(target_arch = "wasm32")]

mod common;

use bitbudget_app::ui::learn_query::Chapter;
use bitbudget_app::ui::pages::learn::chapters::CHAPTERS;
use bitbudget_app::ui::pages::learn::scenario::rows;
use bitbudget_app::ui::pages::learn::text::Widget;
use bitbudget_app::ui::pages::learn::{fp16_window, weight_bytes, worked, LearnPage};
use bitbudget_app::ui::url_state::{parse_query, Tab};
use bitbudget_math::format::FormatId;
use bitbudget_math::numbers::{format_bytes, short, Units};
use common::*;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn mount(chapter: Chapter, embed: bool) -> (web_sys::HtmlElement, impl Sized) {
    let root = fresh_root();
    let handle = leptos::mount::mount_to(
        root.clone(),
        move || view! { <LearnPage initial=chapter embed /> },
    );
    (root, handle)
}

fn click(root: &web_sys::HtmlElement, id: &str) {
    by_testid(root, id).click();
}

fn key(root: &web_sys::HtmlElement, target_id: &str, key: &str) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    by_testid(root, target_id).dispatch_event(&ev).unwrap();
}

fn heading(root: &web_sys::HtmlElement) -> String {
    text(root, "learn-heading")
}

/// Checks the numbers the open chapter `n` shows against the math crate.
fn check_numbers(root: &web_sys::HtmlElement, n: u8) {
    match &CHAPTERS[n as usize - 1].widget {
        Widget::Bytes => {
            let fp32 = format_bytes(weight_bytes(1_000_000_000, FormatId::F32), Units::Gb);
            assert_eq!(fp32, "4.00 GB");
            assert_eq!(
                text(root, &format!("learn-bytes-{}", FormatId::F32.name())),
                fp32
            );
            let int4 = format_bytes(weight_bytes(1_000_000_000, FormatId::F4E2M1), Units::Gb);
            assert_eq!(
                text(root, &format!("learn-bytes-{}", FormatId::F4E2M1.name())),
                int4
            );
        }
        Widget::Formats => {
            assert_text_has(
                root,
                &format!("learn-stored-{}", FormatId::F32.name()),
                "0.100000001",
            );
        }
        Widget::LossScale => {
            assert_eq!(text(root, "learn-window-low"), short(fp16_window(0).0, 3));
            assert_eq!(text(root, "learn-window-high"), short(fp16_window(0).1, 5));
        }
        Widget::Scenario(s) => {
            let start = s.scale.map(|(_, _, v)| v[0]);
            for (i, row) in rows(s, start).iter().enumerate() {
                assert_eq!(
                    text(root, &format!("learn-row-{i}-memory")),
                    row.total(),
                    "chapter {n} row {i}"
                );
                assert_eq!(
                    text(root, &format!("learn-row-{i}-time")),
                    row.seconds(),
                    "chapter {n} row {i}"
                );
                assert_eq!(
                    text(root, &format!("learn-row-{i}-extra")),
                    (s.extra.1)(row),
                    "chapter {n} row {i}"
                );
            }
            assert!(present(root, "learn-open-memory"));
        }
        Widget::Quantize => {
            let w = &worked(false)[0];
            assert_eq!(
                text(root, "learn-absmax-0"),
                format!("{} → {}", w.absmax_code, short(w.absmax_back as f64, 3))
            );
        }
    }
    assert!(present(root, "learn-try"));
}

#[wasm_bindgen_test]
async fn next_steps_through_every_chapter_and_each_shows_its_computed_numbers() {
    let (root, _app) = mount(Chapter::FIRST, false);
    settle().await;
    for n in 1..=Chapter::COUNT {
        assert!(
            heading(&root).starts_with(&format!("{n}. ")),
            "{}",
            heading(&root)
        );
        check_numbers(&root, n);
        if n < Chapter::COUNT {
            click(&root, "learn-next");
            settle().await;
        }
    }
    assert!(
        !present(&root, "learn-next"),
        "no next after the last chapter"
    );
}

#[wasm_bindgen_test]
async fn the_keyboard_alone_goes_from_chapter_1_to_13_and_focuses_each_heading() {
    let (root, _app) = mount(Chapter::FIRST, false);
    settle().await;
    for n in 2..=Chapter::COUNT {
        let k = if n % 2 == 0 { "ArrowRight" } else { "PageDown" };
        key(&root, "learn-heading", k);
        settle().await;
        assert!(
            heading(&root).starts_with(&format!("{n}. ")),
            "{}",
            heading(&root)
        );
        let active = web_sys::window()
            .unwrap()
            .document()
            .unwrap()
            .active_element()
            .unwrap();
        assert_eq!(
            active.get_attribute("data-testid").as_deref(),
            Some("learn-heading")
        );
    }
    key(&root, "learn-heading", "ArrowRight");
    settle().await;
    assert!(
        heading(&root).starts_with("13. "),
        "stays on the last chapter"
    );
    key(&root, "learn-heading", "PageUp");
    settle().await;
    assert!(heading(&root).starts_with("12. "));
    // Arrows inside a form field belong to the field.
    let select: web_sys::HtmlElement = root
        .query_selector("input, select")
        .unwrap()
        .unwrap()
        .unchecked_into();
    select.set_attribute("data-testid", "a-select").unwrap();
    key(&root, "a-select", "ArrowRight");
    settle().await;
    assert!(heading(&root).starts_with("12. "));
}

#[wasm_bindgen_test]
async fn a_bad_step_opens_chapter_1_with_a_note_and_embeds_show_the_chapter_alone() {
    let q = parse_query("?tab=learn&step=99");
    assert_eq!(q.tab, Tab::Learn);
    assert_eq!(q.chapter, Chapter::FIRST);
    assert!(
        q.notes.iter().any(|n| n.contains("showing chapter 1")),
        "{:?}",
        q.notes
    );
    let q = parse_query("?tab=learn&step=8&embed=1");
    let (root, _app) = mount(q.chapter, q.embed);
    settle().await;
    assert!(heading(&root).starts_with("8. "));
    assert!(!present(&root, "learn-nav-1"));
    assert!(!present(&root, "learn-next"));
    check_numbers(&root, 8);
}

#[wasm_bindgen_test]
async fn choosing_a_row_or_a_sequence_length_recomputes_the_chapter() {
    let (root, _app) = mount(Chapter::new(11).unwrap(), false);
    settle().await;
    let before = text(&root, "learn-row-0-extra");
    choose(&root, "learn-scale-seq", "16384");
    settle().await;
    let Widget::Scenario(s) = &CHAPTERS[10].widget else {
        panic!("chapter 11 compares setups")
    };
    let after = rows(s, Some("16384"));
    assert_eq!(text(&root, "learn-row-0-extra"), (s.extra.1)(&after[0]));
    assert_ne!(text(&root, "learn-row-0-extra"), before);
    let (bar_before, _) = canvas_fingerprint(&root, "learn-bar");
    by_testid(&root, "learn-choose-1").click();
    settle().await;
    assert_ne!(
        canvas_fingerprint(&root, "learn-bar").0,
        bar_before,
        "the bar follows the chosen row"
    );
}
