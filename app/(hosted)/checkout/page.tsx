// /checkout without a session id: the same hosted "does not exist" page as /pay without a link id.
export { default, metadata } from "../pay/page";
