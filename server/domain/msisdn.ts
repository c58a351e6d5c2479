// The server's number rules: the full "max" metadata build, so any country's number is told
// apart from ours exactly. The rules themselves live in msisdn-rules.ts.
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { msisdnNormaliser } from "./msisdn-rules";

export { formatMsisdnLocal, maskMsisdn, NETWORK_NAMES, networkHint, networkOf, type MsisdnResult, type WalletNetwork } from "./msisdn-rules";

export const normaliseMsisdn = msisdnNormaliser(parsePhoneNumberFromString);
