//! The frame every page shares: header and navigation, the theme, the Embed button and the
//! embedded widget's "open in bitbudget" link, the URL's notes, and the URL vocabulary they share.
//! The shell never reaches into a page: `ui::app` puts the two together.

pub mod embed_button;
pub mod embed_open_link;
pub mod light;
pub mod notes;
pub mod on_demand;
pub mod palette;
pub mod query;
pub mod theme_toggle;
pub mod url;
