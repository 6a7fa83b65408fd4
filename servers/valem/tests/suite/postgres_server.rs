//! The test PostgreSQL server itself: it starts, takes connections with the password only, and
//! is gone once dropped.

use crate::support::postgres::{PASSWORD, Postgres};

#[test]
#[cfg_attr(not(has_postgres), ignore = "needs PostgreSQL (initdb, postgres): apt-get install postgresql")]
fn the_test_server_starts_asks_for_the_password_and_stops_on_drop() {
    let server = Postgres::start();
    let url = server.database("probe");
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let row = client.query_one("SELECT current_database(), current_user", &[]).unwrap();
    assert_eq!((row.get::<_, String>(0), row.get::<_, String>(1)), ("probe".to_owned(), "valem".to_owned()));
    let wrong = url.replace(PASSWORD, "not-the-password");
    let refused = postgres::Client::connect(&wrong, postgres::NoTls).err().expect("a wrong password is refused");
    let code = refused.as_db_error().map(|e| e.code().clone());
    assert_eq!(code, Some(postgres::error::SqlState::INVALID_PASSWORD), "{refused:?}");
    let port = server.port();
    drop(client);
    drop(server);
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "the server still listens on {port}");
}
