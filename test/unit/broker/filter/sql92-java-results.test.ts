/**
 * The SQL92 selector against Java's own answers: every row's expected value was produced by running the expression
 * classes of Apache RocketMQ 5.3.3 (SelectorParser.parse + Expression.evaluate over a map of the same properties) on
 * JDK 17. `'error'` is an evaluation that throws in Java (the broker then treats the message as not matched);
 * `parseError` is the first line of the MQFilterException message (what Java's broker puts in its remark).
 * Rows marked "4.9.8 differs" use the CONTAINS / STARTSWITH / ENDSWITH operators, which 4.9.8 does not have.
 */
import { expect } from 'chai';
import { compileSql92, FilterExpressionError } from '../../../../lib/broker/filter/sql92';
import { RocketMQError } from '../../../../lib/errors';

type Expected = boolean | null | 'error' | { parseError: string };

const JAVA_ROWS: Array<[string, Record<string, string>, Expected]> = [
  ["a > 2", {"a": "3"}, true],
  ["a > 2", {"a": "2"}, false],
  ["a >= 2", {"a": "2"}, true],
  ["a < 2", {"a": "1"}, true],
  ["a <= 2", {"a": "3"}, false],
  ["a = 5", {"a": "5"}, true],
  ["a = 5", {"a": "05"}, true],
  ["a = 5", {"a": "+5"}, true],
  ["a = 5", {"a": "5.0"}, 'error'],
  ["a = 5.0", {"a": "5"}, true],
  ["a = 5", {"a": " 5"}, 'error'],
  ["a = 5.0", {"a": " 5 "}, true],
  ["a <> 5", {"a": "6"}, true],
  ["a <> 5", {}, null],
  ["a > 2147483647", {"a": "2147483648"}, 'error'],
  ["a > 5", {"a": "3000000000"}, 'error'],
  ["a > 5L", {"a": "3000000000"}, 'error'],
  ["a = 9223372036854775807", {"a": "9223372036854775807"}, true],
  ["a < 9223372036854775807", {"a": "9223372036854775806"}, true],
  ["a > 9007199254740992", {"a": "9007199254740993"}, true],
  ["a > -5", {"a": "-4"}, true],
  ["a > -5", {"a": "-6"}, false],
  ["a > 1.5", {"a": "1.6"}, true],
  ["a > 1.5", {"a": "NaN"}, true],
  ["a < 1.5", {"a": "-Infinity"}, true],
  ["a = 1.5", {"a": "1.5d"}, true],
  ["a > 1e3", {"a": "1001"}, true],
  ["a > .5", {"a": "0.6"}, true],
  ["a > 5.", {"a": "6"}, true],
  ["a > b", {"a": "10", "b": "9"}, true],
  ["a > b", {"a": "x", "b": "9"}, 'error'],
  ["a BETWEEN 1 AND 3", {"a": "1"}, true],
  ["a BETWEEN 1 AND 3", {"a": "4"}, false],
  ["a NOT BETWEEN 1 AND 3", {"a": "4"}, true],
  ["a NOT BETWEEN 1 AND 3", {}, null],
  ["a BETWEEN -5 AND -1", {"a": "-3"}, true],
  ["region = 'r1'", {"region": "r1"}, true],
  ["region = 'r1'", {"region": "R1"}, false],
  ["region <> 'r1'", {"region": "r2"}, true],
  ["s = 'it''s'", {"s": "it's"}, true],
  ["s = ''''", {"s": "'"}, true],
  ["s = ''", {"s": ""}, true],
  ["s = 'a b'", {"s": "a b"}, true],
  ["region IN ('r1', 'r2')", {"region": "r2"}, true],
  ["region IN ('r1', 'r2')", {"region": "r3"}, false],
  ["region IN ('r1')", {}, null],
  ["region NOT IN ('r1', 'r2')", {"region": "r3"}, true],
  ["region NOT IN ('r1', 'r2')", {}, null],
  ["region IN ('a','b','c','d','e','f')", {"region": "f"}, true],
  ["s CONTAINS 'b'", {"s": "abc"}, true],  // 4.9.8 differs
  ["s CONTAINS 'z'", {"s": "abc"}, false],
  ["s CONTAINS 'b'", {}, false],  // 4.9.8 differs
  ["s NOT CONTAINS 'b'", {}, false],  // 4.9.8 differs
  ["s NOT CONTAINS 'z'", {"s": "abc"}, true],  // 4.9.8 differs
  ["s STARTSWITH 'ab'", {"s": "abc"}, true],  // 4.9.8 differs
  ["s NOT STARTSWITH 'ab'", {"s": "abc"}, false],  // 4.9.8 differs
  ["s ENDSWITH 'bc'", {"s": "abc"}, true],  // 4.9.8 differs
  ["s NOT ENDSWITH 'bc'", {"s": "abd"}, true],  // 4.9.8 differs
  ["s CONTAINS ''", {"s": "abc"}, false],
  ["s NOT CONTAINS ''", {"s": "abc"}, false],  // 4.9.8 differs
  ["5 CONTAINS '5'", {}, false],  // 4.9.8 differs
  ["'abc' CONTAINS 'b'", {}, true],  // 4.9.8 differs
  ["b = TRUE", {"b": "true"}, true],
  ["b = TRUE", {"b": "TRUE"}, true],
  ["b = TRUE", {"b": "yes"}, false],
  ["b = FALSE", {"b": "no"}, true],
  ["TRUE = b", {"b": "true"}, 'error'],
  ["TRUE", {}, true],
  ["FALSE", {}, false],
  ["NULL", {}, null],
  ["TRUE = TRUE", {}, true],
  ["1 = TRUE", {}, false],
  ["b", {"b": "true"}, false],
  ["b", {}, null],
  ["NOT b", {"b": "true"}, true],
  ["a IS NULL", {}, true],
  ["a IS NULL", {"a": "1"}, false],
  ["a IS NOT NULL", {"a": "1"}, true],
  ["a IS NOT NULL", {}, false],
  ["a = 1", {}, null],
  ["NOT (a = 1)", {}, null],
  ["a > 1", {}, null],
  ["a = b", {}, true],
  ["a = b", {"a": "1"}, false],
  ["a = b", {"b": "1"}, null],
  ["a <> b", {"a": "1"}, true],
  ["a <> b", {"b": "1"}, null],
  ["'x' <> a", {}, true],
  ["a = -'x'", {}, true],
  ["-a > 1", {"a": "5"}, null],
  ["a = 1 AND b = 1", {"b": "1"}, null],
  ["a = 1 AND b = 1", {"b": "2"}, false],
  ["a = 1 OR b = 1", {"b": "1"}, true],
  ["a = 1 OR b = 1", {"b": "2"}, null],
  ["NOT (a = 1 OR b = 1)", {"b": "2"}, null],
  ["a = 1", {"a": "x"}, 'error'],
  ["a = 1 OR b = 'y'", {"a": "x", "b": "y"}, 'error'],
  ["b = 'y' OR a = 1", {"a": "x", "b": "y"}, true],
  ["a = 1 AND b = 'y'", {"a": "2", "b": "y"}, false],
  ["b = 'n' AND a = 1", {"a": "x", "b": "y"}, false],
  ["TRUE = b", {"b": "x"}, 'error'],
  ["a = 1 OR b = 1 AND c = 1", {"a": "1"}, true],
  ["(a = 1 OR b = 1) AND c = 1", {"a": "1"}, null],
  ["a = 1 OR b = 1 AND c = 1", {"b": "1"}, null],
  ["NOT a = 1", {"a": "1"}, false],
  ["NOT a = 1", {"a": "2"}, false],
  ["NOT a = TRUE", {"a": "1"}, true],
  ["NOT (a = 1)", {"a": "2"}, true],
  ["NOT NOT (a = 1)", {"a": "1"}, true],
  ["a = 1 AND NOT b = 2 OR c = 3", {"c": "3"}, true],
  ["((a = 1))", {"a": "1"}, true],
  ["a is null or B Is Not Null", {"B": "1"}, true],
  ["not (a between 1 and 3)", {"a": "5"}, true],
  ["A = 1", {"a": "1"}, null],
  ["$a = 1", {"$a": "1"}, true],
  ["_x_1 = 'v'", {"_x_1": "v"}, true],
  ["a = +5", {"a": "5"}, true],
  ["a = - -5", {"a": "5"}, true],
  ["a = 1 /* c */ AND b = 2", {"a": "1", "b": "2"}, true],
  ["a = 1 -- c\nAND b = 3", {"a": "1", "b": "2"}, false],
  ["a = 1\tAND\nb = 2", {"a": "1", "b": "2"}, true],
  ["a = 1 xyz", {"a": "1"}, true],
  ["a = 1)", {"a": "1"}, true],
  ["a = 1 -- no newline", {"a": "1"}, true],
  ["a > 2 AND region = 'r1'", {"a": "5", "region": "r1"}, true],
  ["a > 2 AND region = 'r1'", {"a": "4", "region": "r0"}, false],
  ["a > 2 AND region = 'r1'", {"a": "1", "region": "r1"}, false],
  ["", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \"<EOF>\" at line 0, column 0." }],
  ["a =", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \"<EOF>\" at line 1, column 3." }],
  ["a = 1 AND", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \"<EOF>\" at line 1, column 9." }],
  ["(a = 1", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \"<EOF>\" at line 1, column 6." }],
  ["()", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \" \")\" \") \"\" at line 1, column 2." }],
  ["a == 1", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \" \"=\" \"= \"\" at line 1, column 4." }],
  ["a != 1", {}, { parseError: "org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 3.  Encountered: \"!\" (33), after : \"\"" }],
  ["a NOT x", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \" \"NOT\" \"NOT \"\" at line 1, column 3." }],
  ["a IS x", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \" <ID> \"x \"\" at line 1, column 6." }],
  ["a IN (1)", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \" <DECIMAL_LITERAL> \"1 \"\" at line 1, column 7." }],
  ["a IN ()", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \" \")\" \") \"\" at line 1, column 7." }],
  ["5 IN ('a')", {}, { parseError: "java.lang.RuntimeException: Expected a property for In expression, got: 5" }],
  ["5", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Expression will not result in a boolean value: 5" }],
  ["'x'", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Expression will not result in a boolean value: 'x'" }],
  ["-a", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Expression will not result in a boolean value: (- a)" }],
  ["NOT 5", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Expression will not result in a boolean value: 5" }],
  ["a = NULL", {}, { parseError: "java.lang.RuntimeException: 'NULL' cannot be compared." }],
  ["NULL = a", {}, { parseError: "java.lang.RuntimeException: 'NULL' cannot be compared." }],
  ["TRUE = 1", {}, { parseError: "java.lang.RuntimeException: 'TRUE' cannot be compared with '1'" }],
  ["a > TRUE", {}, { parseError: "java.lang.RuntimeException: Value 'TRUE' cannot be compared." }],
  ["a > 'x'", {}, { parseError: "java.lang.RuntimeException: Value ''x'' cannot be compared." }],
  ["NOT a > 1", {}, { parseError: "java.lang.RuntimeException: Value '(NOT a)' cannot be compared." }],
  ["a > 1 > 2", {}, { parseError: "java.lang.RuntimeException: Value '(a > 1)' cannot be compared." }],
  ["a BETWEEN 5 AND 1", {}, { parseError: "java.lang.RuntimeException: Illegal values of between, left value(5) must less than or equal to right value(1)" }],
  ["a BETWEEN NULL AND 5", {}, { parseError: "java.lang.RuntimeException: Illegal values of between, values can not be null!" }],
  ["a BETWEEN 'x' AND 5", {}, { parseError: "java.lang.RuntimeException: java.lang.NumberFormatException: For input string: \"x\"" }],
  ["a BETWEEN 'x' AND TRUE", {}, { parseError: "java.lang.ClassCastException: class java.lang.Boolean cannot be cast to class java.lang.String (java.lang.Boolean and java.lang.String are in module java.base of loader 'bootstrap')" }],
  ["a = 9223372036854775808", {}, { parseError: "java.lang.NumberFormatException: For input string: \"9223372036854775808\"" }],
  ["a = 1e309", {}, { parseError: "java.lang.RuntimeException: 1e309 is greater than 1.7976931348623157E308" }],
  ["a = 0.0", {}, { parseError: "java.lang.RuntimeException: 0.0 is less than 4.9E-324" }],
  ["a = 1e-400", {}, { parseError: "java.lang.RuntimeException: 1e-400 is less than 4.9E-324" }],
  ["a = 0x1F", {}, null],
  ["a = 012", {}, null],
  ["a = 5e", {}, null],
  ["a.b = 1", {}, { parseError: "org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 3.  Encountered: \"b\" (98), after : \".\"" }],
  ["a = .", {}, { parseError: "org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 6.  Encountered: <EOF> after : \"\"" }],
  ["a \u00a7 1", {}, { parseError: "org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 3.  Encountered: \"\\u00a7\" (167), after : \"\"" }],
  ["a = '", {}, { parseError: "org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 6.  Encountered: <EOF> after : \"\"" }],
  ["a = 'x", {}, { parseError: "org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 7.  Encountered: <EOF> after : \"\\'x\"" }],
  ["a = 1 /* c", {}, { parseError: "org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 11.  Encountered: <EOF> after : \"/* c\"" }],
  ["and = 1", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \" \"AND\" \"and \"\" at line 1, column 1." }],
  ["contains = 1", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \" \"CONTAINS\" \"contains \"\" at line 1, column 1." }],  // 4.9.8 differs
  ["a = 1 OR\n\tb =", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \"<EOF>\" at line 2, column 11." }],
  ["s CONTAINS 5", {}, { parseError: "org.apache.rocketmq.filter.parser.ParseException: Encountered \" <DECIMAL_LITERAL> \"5 \"\" at line 1, column 12." }],  // 4.9.8 differs
];

describe('broker/filter/sql92 against Java 5.3.3 results', () => {
  for (const [expression, props, expected] of JAVA_ROWS) {
    const title = `${JSON.stringify(expression)} over ${JSON.stringify(props)} → ${JSON.stringify(expected)}`;
    it(title, () => {
      if (typeof expected === 'object' && expected !== null) {
        let error: unknown;
        try {
          compileSql92(expression);
        } catch (e) {
          error = e;
        }
        expect(error).to.be.instanceOf(FilterExpressionError);
        expect(error).to.be.instanceOf(RocketMQError);
        expect((error as FilterExpressionError).message).to.equal(expected.parseError);
        expect((error as FilterExpressionError).expression).to.equal(expression);
        expect((error as FilterExpressionError).responseCode).to.equal(23);
        return;
      }
      const filter = compileSql92(expression);
      const read = (name: string) => (Object.prototype.hasOwnProperty.call(props, name) ? props[name] : undefined);
      if (expected === 'error') {
        expect(() => filter.evaluateRaw(read)).to.throw();
        expect(filter.evaluate(read)).to.equal(false);
      } else {
        expect(filter.evaluateRaw(read)).to.equal(expected);
        expect(filter.evaluate(read)).to.equal(expected === true);
      }
    });
  }
});
