//! Python's `float.__repr__`, which both a number built from a float and the writers spell.

/// `float.__repr__`: shortest round-trip digits, exponent form when the decimal point would
/// sit before position -4 or after position 16.
pub(crate) fn python_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity".to_owned() } else { "-Infinity".to_owned() };
    }
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').expect("LowerExp always has an exponent");
    let exp: i32 = exp.parse().expect("LowerExp exponent is an integer");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f.is_sign_negative() { "-" } else { "" };
    let decpt = exp + 1;
    let n = i32::try_from(digits.len()).expect("at most 17 significant digits");
    let body = if f == 0.0 {
        "0.0".to_owned()
    } else if decpt <= -4 || decpt > 16 {
        let mut m = digits[..1].to_owned();
        if digits.len() > 1 {
            m.push('.');
            m.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
    } else if decpt <= 0 {
        format!("0.{}{digits}", "0".repeat(usize::try_from(-decpt).expect("non-negative")))
    } else if decpt >= n {
        format!("{digits}{}.0", "0".repeat(usize::try_from(decpt - n).expect("non-negative")))
    } else {
        let d = usize::try_from(decpt).expect("positive");
        format!("{}.{}", &digits[..d], &digits[d..])
    };
    format!("{sign}{body}")
}
