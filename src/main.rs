//! Entry point of the bitbudget web app: install the panic hook and mount the app.

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(bitbudget_app::App);
}
