/** The zod string type the string helpers return. */
type ZodString = InstanceType<typeof z.ZodString>

/** A zod check on values of type T. */
type Check<T> = ReturnType<typeof z.check<T>>

/**
 * RECORD_ONLY is the params of a zod length check that never runs: zod still
 * records its bound in the schema's bag, which toJSONSchema reads (so the
 * JSON Schema OpenCode shows the model has minLength/maxLength, whichever copy
 * of zod renders it), but the check validates nothing. zod's params types
 * leave out when, which every check's definition has, hence the cast.
 */
const RECORD_ONLY = { when: () => false } as {}

/**
 * ONLY_ARRAYS restricts an item-count check to arrays: zod's default when
 * also fires for any other value with a length (a string, an object with a
 * "length" key) after its type check failed.
 */
const ONLY_ARRAYS = { when: (payload: { value: unknown }) => Array.isArray(payload.value) } as {}

/**
 * runeString is a string of at least min and at most max Unicode code points
 * (either bound may be absent), the unit of the spec (CUE's strings.MinRunes,
 * JSON Schema's minLength); zod's own .min/.max count UTF-16 code units. A
 * lone surrogate counts as one code point, as in [...s].length. Its issues
 * are shaped like zod's own length issues, so zod writes the same message
 * ("Too small: expected string to have >=1 characters").
 */
function runeString(min: number | undefined, max: number | undefined): ZodString {
  let s = z.string()
  if (min !== undefined) {
    s = s.min(min, RECORD_ONLY)
  }
  if (max !== undefined) {
    s = s.max(max, RECORD_ONLY)
  }
  return s.check((payload) => {
    const v: string = payload.value
    // n UTF-16 code units hold between n/2 and n code points: count them
    // only when the length cannot decide.
    let n = v.length
    if ((max !== undefined && n > max) || (min !== undefined && n < 2 * min)) {
      n = 0
      for (const _ of v) n++
    }
    // zod's own length issues, key for key.
    if (min !== undefined && n < min) {
      payload.issues.push({
        origin: "string", code: "too_small", minimum: min, inclusive: true, input: v, continue: true,
      })
    }
    if (max !== undefined && n > max) {
      payload.issues.push({
        origin: "string", code: "too_big", maximum: max, inclusive: true, input: v, continue: true,
      })
    }
  })
}

/** runes is a string of min to max code points (strings.MinRunes(min) & strings.MaxRunes(max)). */
export function runes(min: number, max: number): ZodString {
  return runeString(min, max)
}

/** minRunes is a string of at least min code points (strings.MinRunes(min)). */
export function minRunes(min: number): ZodString {
  return runeString(min, undefined)
}

/** maxRunes is a string of at most max code points (strings.MaxRunes(max)). */
export function maxRunes(max: number): ZodString {
  return runeString(undefined, max)
}

/**
 * minItems checks that an array has at least n items (list.MinItems(n)).
 * Its issue comes after the items' issues; it never fires for a non-array.
 */
export function minItems(n: number): Check<readonly unknown[]> {
  return z.minLength(n, ONLY_ARRAYS)
}

/** maxItems checks that an array has at most n items (list.MaxItems(n)), as minItems does. */
export function maxItems(n: number): Check<readonly unknown[]> {
  return z.maxLength(n, ONLY_ARRAYS)
}

/** The patterns of a named check: none of reject may match, all of match must. */
export interface Rule {
  reject?: readonly RegExp[]
  match?: readonly RegExp[]
}

/**
 * named is a named check of the spec (a definition with @check(message)): a
 * string passes when none of rule.reject matches it and every rule.match
 * does; else zod reports {code: "custom", message}. OpenCode drops checks from
 * the JSON Schema, so the field's description states the rule in words.
 */
export function named(message: string, rule: Rule): Check<string> {
  const reject = rule.reject ?? []
  const match = rule.match ?? []
  return z.refine<string>((s) => reject.every((re) => !re.test(s)) && match.every((re) => re.test(s)), { message })
}
