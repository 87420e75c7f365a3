//! The Serve page's light embed: the verdict and the charts; the controls and the engine's
//! accounting load with the whole page when a reader opens them (`ui::shell::light`).

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(
        bitbudget_app::app::<
            bitbudget_app::ui::shell::light::Light<
                bitbudget_app::ui::pages::serve::query::ServeQuery,
            >,
        >,
    );
}
