//! The kit every report is drawn with: charts and their fonts (`draw`,
//! `scaled`), the page skeleton (`page`), words and numbers (`words`),
//! the output folder and its default name (`output_dir`, `folder_names`)
//! and the command line a report repeats (`command_line`). It draws on
//! nothing else in the report room.

pub mod command_line;
pub mod draw;
pub mod folder_names;
pub mod output_dir;
pub mod page;
pub mod scaled;
pub mod words;
