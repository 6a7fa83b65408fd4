//! The real `valem serve` binary and a plain HTTP/1.1 client of its REST routes, for the tests
//! and the durable bench that drive it over 127.0.0.1.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::served::Served;

/// `valem serve --listen 127.0.0.1:0 args..` and the address it listens on. The process is
/// killed (SIGKILL) when this drops.
pub struct Serve {
    served: Served,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Serve {
    pub fn start(bin: &Path, args: &[&str]) -> Serve {
        let served = Served::start(bin, args);
        let addr = served.url.trim_start_matches("http://").to_owned();
        Serve { served, addr }
    }

    pub fn client(&self) -> Rest {
        Rest::connect(&self.addr).expect("the server accepts")
    }

    /// SIGKILL, and the process reaped.
    pub fn kill(&mut self) {
        self.served.stop();
    }
}

/// One kept-alive connection.
pub struct Rest {
    reader: BufReader<TcpStream>,
}

impl Rest {
    pub fn connect(addr: &str) -> io::Result<Rest> {
        let stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        stream.set_nodelay(true)?;
        Ok(Rest { reader: BufReader::new(stream) })
    }

    /// `method path` with `body` as JSON; the status and the JSON answer (null when empty).
    pub fn call(&mut self, method: &str, path: &str, body: Option<&Value>) -> io::Result<(u16, Value)> {
        let body = body.map(Value::to_string).unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        self.reader.get_mut().write_all(request.as_bytes())?;
        let bad = |why: &str| io::Error::new(io::ErrorKind::InvalidData, why.to_owned());
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the connection closed"));
        }
        let status = line.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| bad("no status line"))?;
        let mut length = 0;
        loop {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the connection closed"));
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().map_err(|_| bad("a bad content-length"))?;
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body)?;
        let value =
            if body.is_empty() { Value::Null } else { serde_json::from_slice(&body).map_err(|_| bad("not JSON"))? };
        Ok((status, value))
    }
}
