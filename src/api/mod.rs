//! Layer 5, `api`: what a program holds. [`Db`](db::Db), [`Table`](table::Table),
//! [`Scanner`](scanner::Scanner), salted scans and the request builders ([`ops`]): thin handles
//! that check their input and call the engine. Imports every lower layer.

pub(crate) mod admin;
pub(crate) mod db;
pub(crate) mod db_handle;
pub mod inspect;
pub(crate) mod maintenance;
pub(crate) mod ops;
pub(crate) mod remote;
pub(crate) mod salted;
pub(crate) mod scanner;
pub(crate) mod table;
pub(crate) mod table_admin;
pub(crate) mod table_batch;
pub(crate) mod table_handle;
pub(crate) mod table_write;
