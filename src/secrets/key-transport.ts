/**
 * How a credential bound to hosts may travel (https to port 443, loopback excepted while
 * allowed): the rule lives beside the bound credential in policy/, where `guardedFetch` reads it.
 */
export { boundKeyTransportRefusal } from "../policy/bound-credential";
