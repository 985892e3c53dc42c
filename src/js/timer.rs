//! A setTimeout-based sleep whose timer is unref'd where the host supports it (Node's Timeout
//! objects), so that a background poller never keeps a process alive. Cleared when dropped.

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::oneshot;
use futures::future::LocalBoxFuture;
use futures::FutureExt;
use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::value::method;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: i32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
}

/// Clears the timer (and frees the closure) when the sleep is dropped early.
struct Timer {
    handle: JsValue,
    _closure: Closure<dyn FnMut()>,
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.handle);
    }
}

/// Resolves after `ms`; the timer does not keep Node alive.
pub fn unref_sleep(ms: f64) -> LocalBoxFuture<'static, ()> {
    let ms = if ms.is_finite() { ms.ceil().max(0.0).min(f64::from(i32::MAX)) as i32 } else { i32::MAX };
    let (tx, rx) = oneshot::channel::<()>();
    let tx = Rc::new(RefCell::new(Some(tx)));
    let closure = Closure::<dyn FnMut()>::new(move || {
        if let Some(tx) = tx.borrow_mut().take() {
            let _ = tx.send(());
        }
    });
    let handle = set_timeout(closure.as_ref().unchecked_ref(), ms);
    if let Some(unref) = method(&handle, "unref") {
        let _ = unref.call0(&handle);
    }
    let timer = Timer { handle, _closure: closure };
    async move {
        let _ = rx.await;
        drop(timer);
    }
    .boxed_local()
}
