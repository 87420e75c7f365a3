//! The Serve page's binary: install the panic hook and mount the app showing that page.

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(
        bitbudget_app::app::<bitbudget_app::ui::pages::serve::query::ServeQuery>,
    );
}
