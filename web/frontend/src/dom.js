// One helper to build DOM nodes, for the scripts that render reports themselves (run.js, figures.js).

// element("td", { class: "number" }, "12", child): a new <td>; attributes whose value is null or
// undefined are left out, children may be nodes, strings or numbers (nested arrays are flattened;
// null and undefined children are skipped).
export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined) node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}
