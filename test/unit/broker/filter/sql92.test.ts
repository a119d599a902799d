import { expect } from 'chai';
import { compileSql92, FilterExpressionError, parseSql92 } from '../../../../lib/broker/filter/sql92';
import { nodeToString } from '../../../../lib/broker/filter/sql92/parser';
import { Lexer, TokenKind, decodeStringLiteral, javaCCPosition } from '../../../../lib/broker/filter/sql92/lexer';
import { javaDoubleCompare, javaDoubleToString, parseJavaDouble, parseJavaLong } from '../../../../lib/broker/filter/sql92/java-values';

function kinds(src: string): number[] {
  const lexer = new Lexer(src);
  const out: number[] = [];
  for (;;) {
    const t = lexer.next();
    out.push(t.kind);
    if (t.kind === TokenKind.EOF) return out;
  }
}

function errorOf(expression: string): FilterExpressionError {
  try {
    compileSql92(expression);
  } catch (e) {
    expect(e).to.be.instanceOf(FilterExpressionError);
    return e as FilterExpressionError;
  }
  throw new Error(`expected ${expression} to be refused`);
}

describe('broker/filter/sql92', () => {
  describe('lexer', () => {
    it('reads keywords in any case, identifiers, literals and operators', () => {
      expect(kinds("Not aNd OR between IN true FALSE null is x_1 $y 'a''b' 12 12L 1.5 .5 5. 5e3 = <> > >= < <= ( ) , + -")).to.deep.equal([
        TokenKind.NOT, TokenKind.AND, TokenKind.OR, TokenKind.BETWEEN, TokenKind.IN, TokenKind.TRUE, TokenKind.FALSE, TokenKind.NULL,
        TokenKind.IS, TokenKind.ID, TokenKind.ID, TokenKind.STRING_LITERAL, TokenKind.DECIMAL_LITERAL, TokenKind.DECIMAL_LITERAL,
        TokenKind.FLOATING_POINT_LITERAL, TokenKind.FLOATING_POINT_LITERAL, TokenKind.FLOATING_POINT_LITERAL,
        TokenKind.FLOATING_POINT_LITERAL, TokenKind.EQ, TokenKind.NE, TokenKind.GT, TokenKind.GE, TokenKind.LT, TokenKind.LE,
        TokenKind.LPAREN, TokenKind.RPAREN, TokenKind.COMMA, TokenKind.PLUS, TokenKind.MINUS, TokenKind.EOF,
      ]);
    });

    it('has no hex or octal literals and keeps a keyword prefix inside an identifier', () => {
      expect(kinds('0x1F')).to.deep.equal([TokenKind.DECIMAL_LITERAL, TokenKind.ID, TokenKind.EOF]);
      expect(kinds('012')).to.deep.equal([TokenKind.DECIMAL_LITERAL, TokenKind.DECIMAL_LITERAL, TokenKind.EOF]);
      expect(kinds('notx isnull')).to.deep.equal([TokenKind.ID, TokenKind.ID, TokenKind.EOF]);
    });

    it('skips comments; "--" is a comment only when a line break ends it', () => {
      expect(kinds('a /* x */ -- y\n b')).to.deep.equal([TokenKind.ID, TokenKind.ID, TokenKind.EOF]);
      expect(kinds('a -- y')).to.deep.equal([TokenKind.ID, TokenKind.MINUS, TokenKind.MINUS, TokenKind.ID, TokenKind.EOF]);
    });

    it("decodes '' in string literals", () => {
      expect(decodeStringLiteral("'it''s'")).to.equal("it's");
      expect(decodeStringLiteral("''''")).to.equal("'");
      expect(decodeStringLiteral("''")).to.equal('');
    });

    it("counts lines and columns as JavaCC (tab stops of 8, \\r\\n as one break)", () => {
      expect(javaCCPosition('ab', 1)).to.deep.equal({ line: 1, column: 2 });
      expect(javaCCPosition('\tx', 1)).to.deep.equal({ line: 1, column: 9 });
      expect(javaCCPosition('a\r\nb', 3)).to.deep.equal({ line: 2, column: 1 });
      expect(javaCCPosition('a\rb', 2)).to.deep.equal({ line: 2, column: 1 });
    });
  });

  describe('parser', () => {
    it('binds OR < AND < equality < comparison, NOT tightest', () => {
      expect(nodeToString(parseSql92('a = 1 OR b = 2 AND c = 3'))).to.equal('((a == 1) || ((b == 2) && (c == 3)))');
      expect(nodeToString(parseSql92('(a = 1 OR b = 2) AND c = 3'))).to.equal('(((a == 1) || (b == 2)) && (c == 3))');
      expect(nodeToString(parseSql92('a = b > 1'))).to.equal('(a == (b > 1))');
      expect(nodeToString(parseSql92('NOT a = 1'))).to.equal('((NOT a) == 1)');
      expect(nodeToString(parseSql92('NOT (a = 1)'))).to.equal('(NOT (a == 1))');
      expect(nodeToString(parseSql92('a <> 1'))).to.equal('(NOT (a == 1))');
      expect(nodeToString(parseSql92('a IS NOT NULL'))).to.equal('(NOT (a == NULL))');
      expect(nodeToString(parseSql92('a BETWEEN 1 AND 2'))).to.equal('((a >= 1) && (a <= 2))');
      expect(nodeToString(parseSql92('a NOT BETWEEN -1 AND 2.5'))).to.equal('((a < (- 1)) || (a > 2.5))');
      expect(nodeToString(parseSql92("a NOT IN ('x', 'y')"))).to.equal('a NOT IN ( x, y )');
    });

    it('types decimal literals as Integer or Long, floats as Double', () => {
      expect(parseSql92('a = 2147483647')).to.deep.include({ right: { type: 'constant', valueType: 'Integer', value: 2147483647 } });
      expect(parseSql92('a = 2147483648')).to.deep.include({ right: { type: 'constant', valueType: 'Long', value: 2147483648 } });
      expect(parseSql92('a = 9223372036854775807')).to.deep.include({ right: { type: 'constant', valueType: 'Long', value: 9223372036854775807n } });
      expect(parseSql92('a = 5L')).to.deep.include({ right: { type: 'constant', valueType: 'Integer', value: 5 } });
      expect(parseSql92('a = 5e0')).to.deep.include({ right: { type: 'constant', valueType: 'Double', value: 5 } });
    });

    it('reports the position and token of a syntax error', () => {
      const e = errorOf('a = 1 AND\n\tb >');
      expect(e.message).to.equal('org.apache.rocketmq.filter.parser.ParseException: Encountered "<EOF>" at line 2, column 11.');
      expect([e.line, e.column]).to.deep.equal([2, 11]);
      const e2 = errorOf('a = 1 AND b == 2');
      expect(e2.message).to.contain('Encountered " "=" "= "" at line 1, column 14.');
      expect(e2.expression).to.equal('a = 1 AND b == 2');
      expect(errorOf('a ! 1').message).to.equal(
        'org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line 1, column 3.  Encountered: "!" (33), after : ""',
      );
    });
  });

  describe('evaluation', () => {
    it('compares big longs exactly and longs against doubles as Java does', () => {
      const read = (v: string) => () => v;
      expect(compileSql92('a > 9007199254740992').evaluate(read('9007199254740993'))).to.equal(true);
      expect(compileSql92('a = 9007199254740993').evaluate(read('9007199254740992'))).to.equal(false);
      expect(compileSql92('a < -9223372036854775807').evaluate(read('-9223372036854775808'))).to.equal(true);
      expect(compileSql92('a > 5').evaluate(read('9223372036854775808'))).to.equal(false); // not an int: error
      expect(compileSql92('a > 5.5').evaluate(read('9223372036854775808'))).to.equal(true);
    });

    it('reads each property through the reader, and nothing else', () => {
      const seen: string[] = [];
      const f = compileSql92("a > 5 AND b = 'x' AND c IS NOT NULL");
      expect(f.evaluate((n) => { seen.push(n); return { a: '6', b: 'x', c: '' }[n]; })).to.equal(true);
      expect(seen).to.deep.equal(['a', 'b', 'c']);
    });
  });

  describe('Java value conversions', () => {
    it('Integer / Long.valueOf', () => {
      expect(parseJavaLong('+5', true)).to.equal(5);
      expect(parseJavaLong('-0', true)).to.equal(0);
      expect(parseJavaLong('2147483648', true)).to.equal(undefined);
      expect(parseJavaLong('-2147483648', true)).to.equal(-2147483648);
      expect(parseJavaLong('00000000000000000005', true)).to.equal(5);
      expect(parseJavaLong('9223372036854775807', false)).to.equal(9223372036854775807n);
      expect(parseJavaLong('9223372036854775808', false)).to.equal(undefined);
      for (const bad of ['', '+', ' 5', '5 ', '5.0', '1e3', '0x10', '5L']) expect(parseJavaLong(bad, false), bad).to.equal(undefined);
    });

    it('Double.valueOf', () => {
      expect(parseJavaDouble(' 5 ')).to.equal(5);
      expect(parseJavaDouble('1.5d')).to.equal(1.5);
      expect(parseJavaDouble('.5e1F')).to.equal(5);
      expect(parseJavaDouble('-Infinity')).to.equal(-Infinity);
      expect(parseJavaDouble('NaN')).to.be.NaN;
      expect(parseJavaDouble('0x1.8p1')).to.equal(3);
      for (const bad of ['', 'abc', '1e', 'Infinityd', '0x10', '1_0']) expect(parseJavaDouble(bad), bad).to.equal(undefined);
    });

    it('Double.compare and Double.toString', () => {
      expect(javaDoubleCompare(NaN, Infinity)).to.equal(1);
      expect(javaDoubleCompare(NaN, NaN)).to.equal(0);
      expect(javaDoubleCompare(-0, 0)).to.equal(-1);
      expect(javaDoubleToString(1e10)).to.equal('1.0E10');
      expect(javaDoubleToString(2.5)).to.equal('2.5');
      expect(javaDoubleToString(1e-5)).to.equal('1.0E-5');
      expect(javaDoubleToString(5)).to.equal('5.0');
    });
  });
});
