// The customer picker (templates/payments/_customer_picker.html): a result chosen from the
// type-ahead fills the hidden field with the customer's id and shows the name and e-mail
// (names can repeat); × clears it.
// The hidden field's change reaches the form (filters refresh on change).
if (!window.customerPickerReady) {
  window.customerPickerReady = true;
  const choose = (picker, id, name, email) => {
    const value = picker.querySelector("[data-picker-value]");
    const chosen = picker.querySelector("[data-picker-chosen]");
    const search = picker.querySelector("input[type=search]");
    const results = picker.querySelector(".picker-results");
    value.value = id;
    picker.querySelector("[data-picker-name]").textContent = name;
    picker.querySelector("[data-picker-email]").textContent = email;
    chosen.hidden = !id;
    search.hidden = !!id;
    search.value = "";
    if (results) results.replaceChildren();
    if (!id) search.focus();
    value.dispatchEvent(new Event("change", { bubbles: true }));
  };
  document.addEventListener("click", (event) => {
    const picker = event.target.closest("[data-customer-picker]");
    if (!picker) return;
    const pick = event.target.closest("[data-pick-id]");
    if (pick) {
      event.preventDefault();
      choose(picker, pick.dataset.pickId, pick.dataset.pickName, pick.dataset.pickEmail || "");
    } else if (event.target.closest("[data-picker-clear]")) {
      event.preventDefault();
      choose(picker, "", "", "");
    }
  });
  // Typing in the search is not a change of the form's filters.
  document.addEventListener("change", (event) => {
    if (event.target.matches("[data-customer-picker] input[type=search]")) event.stopPropagation();
  }, true);
}
