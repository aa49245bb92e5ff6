//! The cells two tables of one kind differ in: every value, named by its
//! path as `--set tables.NAME.…` and a tune name it (rows by label or
//! name, else by position from 0; a list of numbers as one value).

use toml::Value;

/// One cell whose value differs, or which one table has and the other not.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CellDiff {
    /// Its path within the table: `rows.D.column`.
    pub cell: String,
    /// Its value in the first table (`None`: it has no such cell).
    pub first: Option<String>,
    /// Its value in the second table.
    pub second: Option<String>,
}

/// The cells `first` and `second` differ in, in the first table's order,
/// then those only the second has.
pub fn differences(first: &toml::Table, second: &toml::Table) -> Vec<CellDiff> {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    flatten(first, "", &mut a);
    flatten(second, "", &mut b);
    let lookup = |cells: &[(String, String)], cell: &str| {
        cells
            .iter()
            .find(|(path, _)| path == cell)
            .map(|(_, v)| v.clone())
    };
    let mut found: Vec<CellDiff> = a
        .iter()
        .filter_map(|(cell, value)| {
            let other = lookup(&b, cell);
            (other.as_ref() != Some(value)).then(|| CellDiff {
                cell: cell.clone(),
                first: Some(value.clone()),
                second: other,
            })
        })
        .collect();
    found.extend(
        b.iter()
            .filter(|(cell, _)| lookup(&a, cell).is_none())
            .map(|(cell, value)| CellDiff {
                cell: cell.clone(),
                first: None,
                second: Some(value.clone()),
            }),
    );
    found
}

/// Every value of `table` as (path, value as TOML writes it).
fn flatten(table: &toml::Table, prefix: &str, out: &mut Vec<(String, String)>) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            Value::Table(inner) => flatten(inner, &path, out),
            Value::Array(items) if items.iter().all(Value::is_table) && !items.is_empty() => {
                for (i, item) in items.iter().enumerate() {
                    let name = super::toml_path::entry_name(item)
                        .map_or_else(|| i.to_string(), str::to_owned);
                    if let Value::Table(row) = item {
                        flatten(row, &format!("{path}.{name}"), out);
                    }
                }
            }
            other => out.push((path, other.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_that_differ_are_named_by_their_path() {
        let a: toml::Table = toml::from_str(
            "kind = \"survival\"\n[[rows]]\nlabel = \"A\"\ncolumn = \"A\"\nmargins = [1, 2]\n[[rows]]\nlabel = \"B\"\nhp = 2\n",
        )
        .unwrap();
        let b: toml::Table = toml::from_str(
            "kind = \"survival\"\n[[rows]]\nlabel = \"A\"\ncolumn = \"C\"\nmargins = [1, 3]\n[[rows]]\nlabel = \"B\"\nhp = 2\nnote = \"x\"\n",
        )
        .unwrap();
        let cell = |cell: &str, first: Option<&str>, second: Option<&str>| CellDiff {
            cell: cell.to_owned(),
            first: first.map(str::to_owned),
            second: second.map(str::to_owned),
        };
        assert_eq!(
            differences(&a, &b),
            [
                cell("rows.A.column", Some("\"A\""), Some("\"C\"")),
                cell("rows.A.margins", Some("[1, 2]"), Some("[1, 3]")),
                cell("rows.B.note", None, Some("\"x\"")),
            ]
        );
        assert!(differences(&a, &a).is_empty());
    }
}
