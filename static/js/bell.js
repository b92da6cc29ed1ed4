// The notifications bell (templates/notifications/bell.html) polls every 4 s: an unchanged
// count answers 304 and is not swapped; nor is anything but a new bell (a login page after
// the session ended, an error). A background tab does not poll; it catches up once shown.
document.addEventListener("htmx:beforeSwap", (event) => {
  const poller = event.detail.requestConfig && event.detail.requestConfig.elt;
  if (!poller || poller.id !== "bell") return;
  const xhr = event.detail.xhr;
  if (xhr.status !== 200 || !xhr.responseText.includes('id="bell"')) event.detail.shouldSwap = false;
});
document.addEventListener("htmx:beforeRequest", (event) => {
  if (event.detail.elt && event.detail.elt.id === "bell" && document.hidden) event.preventDefault();
});
