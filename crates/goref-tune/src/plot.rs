//! `tune.svg`: each parameter's trajectory, normalised to its range (0 at MIN, 1 at MAX),
//! against the step, drawn by `plotters`' SVG backend as goref-runner's report draws its
//! plots.

use plotters::prelude::*;

use crate::param::Param;
use crate::state::StepRecord;
use crate::{Error, ErrorKind};

/// The plot of `history` (θ after each step, from the start values).
///
/// # Errors
///
/// [`ErrorKind::Plot`] when `plotters` cannot draw it (its message).
pub fn svg(params: &[Param], history: &[StepRecord], steps: usize) -> Result<String, Error> {
    draw(params, history, steps).map_err(|e| {
        let mut text = e.to_string();
        if let Some(source) = e.source() {
            text = format!("{text}: {source}");
        }
        ErrorKind::Plot(text).into()
    })
}

fn draw(
    params: &[Param],
    history: &[StepRecord],
    steps: usize,
) -> Result<String, Box<dyn std::error::Error>> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (760, 400)).into_drawing_area();
        root.fill(&WHITE)?;
        #[allow(clippy::cast_precision_loss)]
        let xmax = steps.max(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .caption("SPSA: θ after each step", ("sans-serif", 18))
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..xmax, -0.02..1.02)?;
        chart
            .configure_mesh()
            .x_desc("steps (game pairs)")
            .y_desc("θ, 0 = MIN, 1 = MAX")
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(RGBColor(0xee, 0xee, 0xee))
            .draw()?;
        for (i, p) in params.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let norm = |v: f64| (v - p.min) / (p.max - p.min);
            #[allow(clippy::cast_precision_loss)]
            let line: Vec<(f64, f64)> = std::iter::once((0.0, norm(p.start)))
                .chain(history.iter().map(|h| (h.step as f64, norm(h.theta[i]))))
                .collect();
            chart
                .draw_series(LineSeries::new(line, color.stroke_width(2)))?
                .label(format!("{} ({}:{})", p.name, p.min, p.max))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font(("sans-serif", 14))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(0xbb, 0xbb, 0xbb))
            .draw()?;
        root.present()?;
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_a_line_a_parameter() {
        let x: Param = "x=10,0:100".parse().unwrap();
        let y: Param = "y=0.5,0:1".parse().unwrap();
        let history: Vec<StepRecord> = (1..=5)
            .map(|step| StepRecord {
                step,
                result: 1.0,
                plus: vec![0.0, 0.0],
                minus: vec![0.0, 0.0],
                theta: vec![10.0 + step as f64, 0.5],
            })
            .collect();
        let svg = svg(&[x, y], &history, 10).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("x (0:100)") && svg.contains("y (0:1)"));
        assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
        // The trajectories' lines, 2 pixels wide, and their legend marks, 3.
        assert_eq!(svg.matches("stroke-width=\"2\"").count(), 2, "{svg}");
        assert_eq!(svg.matches("stroke-width=\"3\"").count(), 2, "{svg}");
    }
}
