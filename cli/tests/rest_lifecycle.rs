//! `cellbase rest` stops on SIGTERM or SIGINT like `cellbase thrift` (thrift_lifecycle.rs):
//! no new connections, an idle keep-alive connection and open scanners do not hold the stop,
//! and the database is closed cleanly (nothing left in the log to replay).
#![cfg(unix)]
mod rest_common;

use rest_common::*;
use std::io::Write;
use std::net::TcpStream;

#[test]
fn sigterm_and_sigint_close_the_database_cleanly() {
    for signal in ["-TERM", "-INT"] {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Server::start(dir.path());
        create_table(&s, "t", &["f"]);
        for i in 0..50 {
            let row = format!("row{i:03}");
            let r = s.send(
                "PUT",
                &format!("/t/{row}"),
                "application/json",
                &cellset(&row, &[("f:q", None, "v")]),
            );
            assert_eq!(r.status, 200);
        }
        // An open scanner and an idle keep-alive connection.
        let r = s.send("PUT", "/t/scanner", "text/xml", "<Scanner batch=\"1\"/>");
        assert_eq!(r.status, 201);
        let mut idle = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        idle.write_all(b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        assert_eq!(s.stop_with(signal), Some(0), "{signal}: exit code");
        closed_cleanly_with_50_rows(dir.path(), signal);
        drop(idle);
    }
}
