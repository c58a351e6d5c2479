// /pay/{id}/anything-else: the hosted "does not exist" page, rendered for the request like /pay without an
// id, rather than Next's prerendered 404 (whose scripts the page's CSP refuses and whose words are not ours)
export { default, metadata } from "../../page";
