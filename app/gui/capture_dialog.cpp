#include "app/gui/capture_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>

#include "capture/capture_kinds.h"

namespace ts {

namespace {

// A line edit with a Browse… button beside it.
QWidget* withBrowse(QLineEdit* edit, QWidget* parent, std::function<void()> browse) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(edit, 1);
  auto* button = new QPushButton(QObject::tr("Browse…"), row);
  QObject::connect(button, &QPushButton::clicked, row, std::move(browse));
  layout->addWidget(button);
  return row;
}

}  // namespace

CaptureDialog::CaptureDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Capture a CUDA program"));
  auto* form = new QFormLayout(this);
  program_ = new QLineEdit(this);
  program_->setObjectName(QStringLiteral("captureProgram"));
  program_->setPlaceholderText(tr("python3, ./train, /usr/bin/…"));
  form->addRow(tr("Program:"), withBrowse(program_, this, [this] {
                 QString p = QFileDialog::getOpenFileName(this, tr("Program to capture"));
                 if (!p.isEmpty()) program_->setText(p);
               }));
  arguments_ = new QLineEdit(this);
  arguments_->setObjectName(QStringLiteral("captureArguments"));
  arguments_->setPlaceholderText(
      tr("train.py --epochs 1   (quoted as in a shell; no shell runs them)"));
  form->addRow(tr("Arguments:"), arguments_);
  directory_ = new QLineEdit(QDir::currentPath(), this);
  form->addRow(tr("Working directory:"), withBrowse(directory_, this, [this] {
                 QString d = QFileDialog::getExistingDirectory(this, tr("Working directory"),
                                                               directory_->text());
                 if (!d.isEmpty()) directory_->setText(d);
               }));
  environment_ = new QPlainTextEdit(this);
  environment_->setPlaceholderText(
      tr("One NAME=value per line, added to the program's environment"));
  environment_->setMaximumHeight(70);
  form->addRow(tr("Environment:"), environment_);
  duration_ = new QDoubleSpinBox(this);
  duration_->setRange(0, 24 * 3600);
  duration_->setDecimals(1);
  duration_->setSuffix(tr(" s"));
  duration_->setSpecialValueText(tr("until the program exits"));
  form->addRow(tr("Duration:"), duration_);
  delay_ = new QDoubleSpinBox(this);
  delay_->setObjectName(QStringLiteral("captureDelay"));
  delay_->setRange(0, 24 * 3600);
  delay_->setDecimals(1);
  delay_->setSuffix(tr(" s"));
  delay_->setSpecialValueText(tr("record from the start"));
  delay_->setToolTip(
      tr("Keep only what happens this long after the launch (start-up and warm-up left out); "
         "the duration still counts from the launch"));
  form->addRow(tr("Delay:"), delay_);
  auto* kindsBox = new QWidget(this);
  auto* kindsLayout = new QHBoxLayout(kindsBox);
  kindsLayout->setContentsMargins(0, 0, 0, 0);
  for (const capture::CaptureKind& k : capture::kCaptureKinds) {
    auto* box = new QCheckBox(tr(std::string(k.label).c_str()), kindsBox);
    box->setProperty("kind",
                     QString::fromLatin1(k.name.data(), static_cast<qsizetype>(k.name.size())));
    box->setChecked(k.byDefault);
    kindsLayout->addWidget(box);
    kinds_ << box;
  }
  form->addRow(tr("Record:"), kindsBox);
  output_ = new QLineEdit(QDir::home().filePath(QStringLiteral("capture-%p.tscope")), this);
  output_->setObjectName(QStringLiteral("captureOutput"));
  output_->setToolTip(tr("%p launcher pid, %h host, %r rank"));
  form->addRow(tr("Save to:"), withBrowse(output_, this, [this] {
                 QString p =
                     QFileDialog::getSaveFileName(this, tr("Save the capture as"), output_->text(),
                                                  tr("Tensorscope sessions (*.tscope)"));
                 if (!p.isEmpty()) output_->setText(p);
               }));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Start"));
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    if (auto r = request(); r.ok())
      accept();
    else
      QMessageBox::warning(this, tr("Cannot start the capture"), QString::fromStdString(r.error()));
  });
  resize(760, sizeHint().height());
}

Result<CaptureRequest> CaptureDialog::request() const {
  CaptureRequest r;
  QString program = program_->text().trimmed();
  if (program.isEmpty()) {
    return Error{tr("Give the program to run.").toStdString()};
  }
  r.argv << program << QProcess::splitCommand(arguments_->text());
  r.workingDirectory = directory_->text().trimmed();
  const QStringList lines =
      environment_->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  for (const QString& line : lines) {
    int eq = line.indexOf(QLatin1Char('='));
    if (eq <= 0) {
      return Error{tr("Environment line '%1' is not NAME=value.").arg(line).toStdString()};
    }
    r.env.append({line.left(eq).trimmed(), line.mid(eq + 1)});
  }
  r.durationSeconds = duration_->value();
  r.delaySeconds = delay_->value();
  if (r.durationSeconds > 0 && r.delaySeconds >= r.durationSeconds) {
    return Error{tr("The delay (%1 s) leaves nothing of the %2 s duration to record: make it "
                    "shorter than the duration.")
                     .arg(r.delaySeconds)
                     .arg(r.durationSeconds)
                     .toStdString()};
  }
  bool all = true;
  for (QCheckBox* box : kinds_) {
    if (box->isChecked()) r.kinds << box->property("kind").toString();
    all &= box->isChecked() != (box->property("kind").toString() == QLatin1String("driver"));
  }
  if (r.kinds.isEmpty()) {
    return Error{tr("Choose at least one kind of event to record.").toStdString()};
  }
  if (all) r.kinds.clear();  // the default set
  r.output = output_->text().trimmed();
  if (r.output.isEmpty()) return Error{tr("Give a file to save the capture to.").toStdString()};
  return r;
}

void CaptureDialog::setRequest(const CaptureRequest& r) {
  program_->setText(r.argv.value(0));
  QStringList args = r.argv.mid(1);
  for (QString& a : args) {
    if (a.contains(QLatin1Char(' ')) || a.isEmpty()) a = QLatin1Char('"') + a + QLatin1Char('"');
  }
  arguments_->setText(args.join(QLatin1Char(' ')));
  if (!r.workingDirectory.isEmpty()) directory_->setText(r.workingDirectory);
  QStringList env;
  for (const auto& [k, v] : r.env) env << k + QLatin1Char('=') + v;
  environment_->setPlainText(env.join(QLatin1Char('\n')));
  duration_->setValue(r.durationSeconds);
  delay_->setValue(r.delaySeconds);
  if (!r.output.isEmpty()) output_->setText(r.output);
  for (QCheckBox* box : kinds_) {
    const QString kind = box->property("kind").toString();
    const capture::CaptureKind* known = capture::findCaptureKind(kind.toStdString());
    box->setChecked(r.kinds.isEmpty() ? known && known->byDefault : r.kinds.contains(kind));
  }
}

}  // namespace ts
