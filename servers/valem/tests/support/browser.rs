//! A headless Chromium driven through chromedriver (WebDriver), for the tests of the sandbox's
//! pages: a developer's browser of its own (its own profile, so its own cookies), closed with
//! its driver when dropped. Every wait is bounded by [`PATIENCE`].

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};
use tokio::runtime::Handle;

use crate::support::peer::PATIENCE;

pub struct Browser {
    client: Option<fantoccini::Client>,
    driver: Child,
    runtime: Handle,
}

impl Browser {
    /// A new headless Chromium, its commands run on `runtime`.
    pub fn open(runtime: &Handle) -> Browser {
        let bin = test_support::CHROMIUM.path();
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = Command::new(bin.join("chromedriver"))
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let capabilities = json!({
            "goog:chromeOptions": {
                "binary": bin.join("chromium"),
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1000,1300", "--hide-scrollbars"],
            },
        });
        let mut browser = Browser { client: None, driver, runtime: runtime.clone() };
        let capabilities = capabilities.as_object().unwrap().clone();
        let webdriver = format!("http://127.0.0.1:{port}");
        let client = browser.run(async move {
            let started = Instant::now();
            loop {
                let connector = HttpConnector::new();
                match ClientBuilder::new(connector).capabilities(capabilities.clone()).connect(&webdriver).await {
                    Ok(client) => return client,
                    Err(e) if started.elapsed() > PATIENCE => panic!("chromedriver answers no session: {e}"),
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        });
        browser.client = Some(client);
        browser
    }

    fn client(&self) -> fantoccini::Client {
        self.client.clone().expect("the browser is open")
    }

    fn run<T>(&self, work: impl Future<Output = T>) -> T {
        self.runtime.block_on(work)
    }

    pub fn goto(&self, url: &str) {
        let client = self.client();
        self.run(async move { client.goto(url).await }).expect("the page opens");
    }

    /// The element `css` finds, once there is one.
    pub fn find(&self, css: &str) -> Element {
        let client = self.client();
        self.run(async move { client.wait().at_most(PATIENCE).for_element(Locator::Css(css)).await })
            .unwrap_or_else(|e| panic!("no {css} on the page: {e}"))
    }

    /// Clicks the element `css` finds.
    pub fn click(&self, css: &str) {
        let element = self.find(css);
        self.run(element.click()).unwrap_or_else(|e| panic!("{css} takes no click: {e}"));
    }

    /// Types `text` into the field `css` finds, after what it held, then leaves it (Tab): the
    /// page hears `change`.
    pub fn type_into(&self, css: &str, text: &str) {
        let element = self.find(css);
        self.run(async {
            element.clear().await?;
            element.send_keys(&format!("{text}{}", char::from(fantoccini::key::Key::Tab))).await
        })
        .unwrap_or_else(|e| panic!("{css} takes no keys: {e}"));
    }

    /// The value of `script`'s `return`, run in the page.
    pub fn eval(&self, script: &str) -> Value {
        let client = self.client();
        self.run(async move { client.execute(script, vec![]).await }).unwrap_or_else(|e| panic!("{script}: {e}"))
    }

    /// Waits until `script` returns `true` in the page; fails with what it last returned, and
    /// the page's text.
    pub fn until(&self, what: &str, script: &str) {
        let started = Instant::now();
        loop {
            let value = self.eval(script);
            if value == Value::Bool(true) {
                return;
            }
            if started.elapsed() > PATIENCE {
                let page = self.eval("return document.body ? document.body.innerText : ''");
                panic!("{what}: still {value} after {PATIENCE:?}; the page reads: {page}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The text of the element `css` finds, once it is not empty.
    pub fn text(&self, css: &str) -> String {
        let read = format!("const e = document.querySelector({css:?}); return e ? e.textContent.trim() : ''");
        self.until(&format!("text in {css}"), &format!("return (() => {{ {read} }})() !== ''"));
        self.eval(&read).as_str().unwrap_or_default().to_owned()
    }

    /// The address the page is at.
    pub fn url(&self) -> String {
        let client = self.client();
        self.run(async move { client.current_url().await }).expect("the browser has an address").to_string()
    }

    /// A PNG of the window.
    pub fn screenshot(&self) -> Vec<u8> {
        let client = self.client();
        self.run(async move { client.screenshot().await }).expect("the browser takes a screenshot")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ending the session closes Chromium; from inside the runtime (a panic there) it cannot
        // be awaited, and the driver's end is left to take it down.
        if let (Some(client), Err(_)) = (self.client.take(), Handle::try_current()) {
            let _ = self.runtime.block_on(async { tokio::time::timeout(PATIENCE, client.close()).await });
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
