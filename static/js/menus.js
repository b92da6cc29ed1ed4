// The top bar: its menus (details[data-menu]) and the search box. Without script the menus
// still open and close (a <details>) and the search box still searches (a form).

// One menu open at a time; a click elsewhere or Escape closes it (Escape gives the focus back
// to its summary).
document.addEventListener("toggle", (event) => {
  const menu = event.target;
  if (!menu.matches || !menu.matches("details[data-menu]") || !menu.open) return;
  document.querySelectorAll("details[data-menu][open]").forEach((other) => {
    if (other !== menu) other.open = false;
  });
}, true);

document.addEventListener("click", (event) => {
  document.querySelectorAll("details[data-menu][open]").forEach((menu) => {
    if (!menu.contains(event.target)) menu.open = false;
  });
  const search = document.querySelector("form[data-search]");
  if (search && !search.contains(event.target)) hideResults(search);
});

function hideResults(form) {
  const results = form.querySelector(".topsearch-results");
  if (results) results.replaceChildren();
}

function typing(element) {
  if (!element) return false;
  if (element.isContentEditable) return true;
  const tag = element.tagName;
  return tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && !["checkbox", "radio", "button", "submit"].includes(element.type));
}

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") {
    const open = document.querySelector("details[data-menu][open]");
    if (open) {
      open.open = false;
      open.querySelector("summary").focus();
      return;
    }
    const search = document.querySelector("form[data-search]");
    if (search && search.contains(document.activeElement)) hideResults(search);
    return;
  }
  // "/" goes to the search box, unless the person is typing in a field.
  if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || typing(document.activeElement)) return;
  const box = document.getElementById("topsearch-q");
  if (!box) return;
  event.preventDefault();
  box.focus();
  box.select();
});
