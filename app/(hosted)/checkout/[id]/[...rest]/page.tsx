// /checkout/{id}/anything-else: the same hosted "does not exist" page as /pay/{id}/anything-else.
export { default, metadata } from "../../../pay/page";
